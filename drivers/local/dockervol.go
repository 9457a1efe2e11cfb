package local

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// ErrFilesDocker: a role's platform files (ConfigMap and Secret volumes,
// Volcano's host files) are placed by the task view, which -docker
// containers do not run under.
var ErrFilesDocker = errors.New("platform files not available with -docker")

// dockerMounts are the `docker run` arguments that show the role's
// volumes at the job's paths inside its container, as the kubelet mounted
// them: a volume a site rule maps (its path for the job's user), a
// hostPath as written, an emptyDir as a directory of the task's own
// (under taskDir) or, with medium Memory, a tmpfs of its sizeLimit.
// A mapped ${user} path is given to Docker resolved, after the same check
// the task view makes (inMappedTree), because Docker follows a link in a
// bind source itself. Platform files are refused, located: only the task
// view places them. dirs are the emptyDir directories, which the driver
// makes 0777 before each start (Docker would make a missing bind source
// root's, 0755: moby volume/mounts/mounts.go MountPoint.Setup).
func dockerMounts(p *translate.Plan, r *jobs.Role, taskDir string) (args, dirs []string, err error) {
	if len(r.Files) > 0 {
		f := r.Files[0]
		return nil, nil, refuse(ErrFilesDocker, f.Pos, "Platform files with -docker", "Role %q needs the file %s (a ConfigMap or Secret volume, or a platform file), "+
			"which the local driver places for processes only, not yet inside containers; run it without -docker.", r.Name, f.Path)
	}
	for _, vol := range r.Volumes {
		a, err := dockerMount(p, r, vol, taskDir)
		if err != nil {
			return nil, nil, err
		}
		if rule := p.Site.Volume(vol.Source, vol.Name); rule == nil || rule.Path == "" {
			if d := emptyDirOf(vol, taskDir); d != "" {
				dirs = append(dirs, d)
			}
		}
		args = append(args, a...)
	}
	return args, dirs, nil
}

// emptyDirOf is the directory of disk emptyDir vol under taskDir, ""
// for any other volume (a site rule maps the name first).
func emptyDirOf(vol jobs.Volume, taskDir string) string {
	if vol.Kind != "emptyDir" || vol.Source == "Memory" {
		return ""
	}
	return filepath.Join(taskDir, "volumes", pathPart(vol.Name))
}

// dockerMount is the argument pair that mounts vol, none when nothing
// provides it here (the reader said so).
func dockerMount(p *translate.Plan, r *jobs.Role, vol jobs.Volume, taskDir string) ([]string, error) {
	bad := func(err error) error {
		return refuse(taskns.ErrValue, vol.Pos, "Volume cannot be mounted", "Role %q, volume %q: %v.", r.Name, vol.Name, err)
	}
	if err := taskns.CheckPath(vol.MountPath); err != nil {
		return nil, bad(err)
	}
	var src string
	ro := vol.ReadOnly
	switch rule := p.Site.Volume(vol.Source, vol.Name); {
	case rule != nil && rule.Path != "":
		mp, err := rule.Map(p.User, vol.SubPath)
		if err == nil {
			err = inMappedTree(rule.Path, mp.Src)
		}
		if err == nil {
			src, err = filepath.EvalSymlinks(mp.Src)
		}
		if err == nil && mp.Tree != "" {
			err = inTree(src, mp.Tree)
		}
		if err != nil {
			return nil, bad(fmt.Errorf("site rule volume %q maps it to %s on this machine, which cannot be shown: %w", rule.Pattern, mp.Src, err))
		}
		ro = ro || rule.ReadOnly
	case vol.Kind == "hostPath":
		src = vol.Source
	case vol.Kind == "emptyDir" && vol.Source == "Memory":
		opt := vol.MountPath
		if vol.SizeMiB > 0 {
			opt += fmt.Sprintf(":size=%dm", vol.SizeMiB)
		}
		if strings.Contains(vol.MountPath, ",") {
			return nil, bad(fmt.Errorf("the mount path %q holds a ',', which docker's --tmpfs cannot carry", vol.MountPath))
		}
		return []string{"--tmpfs", opt}, nil
	case vol.Kind == "emptyDir":
		src = emptyDirOf(vol, taskDir)
	default:
		return nil, nil
	}
	if err := taskns.CheckPath(src); err != nil {
		return nil, bad(err)
	}
	if strings.ContainsAny(src+vol.MountPath, ":,") {
		return nil, bad(fmt.Errorf("the path %s or %s holds a ':' or ',', which a docker mount (src:dst) cannot carry", src, vol.MountPath))
	}
	m := src + ":" + vol.MountPath
	if ro {
		m += ":ro"
	}
	return []string{"-v", m}, nil
}

// inTree refuses real (a resolved path) outside tree's resolved path: a
// link below a mapped tree must not lead a container out of it.
func inTree(real, tree string) error {
	t, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return err
	}
	if real != t && !strings.HasPrefix(real, t+"/") {
		return fmt.Errorf("it leads to %s, outside the mapped tree %s", real, tree)
	}
	return nil
}
