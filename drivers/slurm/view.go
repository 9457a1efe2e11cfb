package slurm

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/contract"
)

// viewData is what js_exec_view (sh/run.sh) reads for role ri: a task
// that runs on the node itself (no container) runs under the task
// namespace wrapper (drivers/taskns) with its platform host names, the
// index left as @I@ for the task to fill in (no name of any format holds
// an '@'), and the volumes a site rule maps (_t_nsbind_K: taskns spec
// lines). A container role gets nothing: Apptainer keeps the node's name.
func viewData(ri roleInfo, job *jobs.Job, ctr string, st settings) (string, error) {
	if ctr != "" {
		return "", nil
	}
	names := contract.HostNamesAt(job, ri.k, "@I@")
	out := fmt.Sprintf("_t_ns_%d=1 _t_nsname_%d=%s\n", ri.k, ri.k, shQuote(strings.Join(names, " ")))
	if job.Extras.Volcano.Plugin("svc") != nil {
		// the svc plugin's host names resolve to the peers on other
		// hosts (run.sh js_peer_hosts)
		out += fmt.Sprintf("_t_nspeers_%d=1\n", ri.k)
	}
	binds, err := volumeBinds(ri.Role, st)
	if err != nil || binds == "" {
		return out, err
	}
	return out + fmt.Sprintf("_t_nsbind_%d=%s\n", ri.k, shQuote(binds)), nil
}

// volumeBinds are the taskns "bind" lines of r's volumes that a site
// volume rule maps to a path (siteconfig.VolumeRule.Map: ${user} being
// the job's user, the subPath joined), each with the mapped tree the
// node's wrapper holds it in (no link leads out of it), and of its
// hostPath volumes no rule maps (hostPathBind); parents before the paths
// under them. Other volumes no rule maps were refused by translate.Build
// (or accepted with -lossy).
func volumeBinds(r *jobs.Role, st settings) (string, error) {
	var binds []bind
	var empties []string
	for _, v := range r.Volumes {
		if v.Kind == "emptyDir" {
			line, err := emptyLine(r, v)
			if err != nil {
				return "", err
			}
			empties = append(empties, line)
			continue
		}
		rule := st.site.Volume(v.Source, v.Name)
		if (rule == nil || rule.Path == "") && v.Kind == "hostPath" {
			b, err := hostPathBind(r, v)
			if err != nil {
				return "", err
			}
			if b != nil {
				binds = append(binds, *b)
			}
			continue
		}
		if rule == nil || rule.Path == "" {
			continue
		}
		m, err := rule.Map(st.user, v.SubPath)
		if err == nil {
			err = taskns.CheckPath(v.MountPath)
		}
		if err != nil {
			return "", refuse(v.Pos, "Role %s, volume %q: %v.", r.Name, v.Name, err)
		}
		ro := "rw"
		if v.ReadOnly || rule.ReadOnly {
			ro = "ro"
		}
		binds = append(binds, bind{ro, v.MountPath, m})
	}
	lines := empties
	for _, b := range binds {
		line := "bind\t" + b.ro + "\t" + b.m.Src + "\t" + b.dst
		if b.m.Tree != "" {
			line += "\t" + b.m.Tree
		}
		if b.m.NoLink {
			line += "\tnolink"
		}
		lines = append(lines, line)
	}
	sort.SliceStable(lines, func(i, j int) bool { return lineDst(lines[i]) < lineDst(lines[j]) })
	return strings.Join(lines, "\n"), nil
}

// bind is one volume's node path (m) at the job's path dst.
type bind struct {
	ro, dst string
	m       siteconfig.Mapped
}

// hostPathBind is the bind of r's hostPath v that no site rule maps: the
// node's path as written, at the job's path, as the kubelet mounted it
// (core/v1 HostPathVolumeSource), and as Nomad (drivers/nomad mounts.go
// hostPath) and the local driver show it; nil where it is the same path,
// which the task sees already.
func hostPathBind(r *jobs.Role, v jobs.Volume) (*bind, error) {
	if path.Clean(v.Source) == path.Clean(v.MountPath) {
		return nil, nil
	}
	for _, p := range []string{v.Source, v.MountPath} {
		if err := taskns.CheckPath(p); err != nil {
			return nil, refuse(v.Pos, "Role %s, hostPath %q at %s: %v.", r.Name, v.Source, v.MountPath, err)
		}
	}
	ro := "rw"
	if v.ReadOnly {
		ro = "ro"
	}
	return &bind{ro, v.MountPath, siteconfig.Mapped{Src: v.Source}}, nil
}

// emptyLine is the taskns "empty" line of r's emptyDir v: per-task
// scratch, as each pod had its own, or a tmpfs of its sizeLimit for
// medium Memory (Kubernetes' EmptyDirVolumeSource, core/v1 types.go,
// v1.29).
func emptyLine(r *jobs.Role, v jobs.Volume) (string, error) {
	if err := taskns.CheckPath(v.MountPath); err != nil {
		return "", refuse(v.Pos, "Role %s, emptyDir %q: %v.", r.Name, v.Name, err)
	}
	medium := taskns.EmptyDisk
	if v.Source == "Memory" {
		medium = taskns.EmptyMemory
	}
	return fmt.Sprintf("empty\t%s\t%d\t%s", medium, v.SizeMiB, v.MountPath), nil
}

// lineDst is the job's path of a bind or empty line (its fourth field),
// by which they are ordered: parents before the paths under them.
func lineDst(line string) string {
	f := strings.Split(line, "\t")
	return f[3]
}

// filesData is what js_files (sh/run.sh) reads for role ri: its platform
// files (jobs.Role.Files), each written fresh by the task into its private
// view directory with the file's mode and bound read-only at its path.
// A file's content travels quoted in the job data (_t_fdata_R_J), or, for
// a Secret, as a value of the 0600 secrets file (_t_fsec_R_J: its number,
// -1 = none), never in the script. checkFiles refused what cannot be
// placed (a container role, a bad path, a NUL byte).
func filesData(ri roleInfo, sec *secretTable) string {
	if len(ri.Files) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "_t_nfiles_%d=%d\n", ri.k, len(ri.Files))
	for j, f := range ri.Files {
		n := -1
		if f.Secret {
			n = sec.add(fmt.Sprintf("file %d %d", ri.k, j), f.Content)
		}
		fmt.Fprintf(&b, "_t_fpath_%d_%d=%s _t_fmode_%d_%d=%04o _t_fsec_%d_%d=%d\n", ri.k, j, shQuote(f.Path), ri.k, j, f.Mode&0o7777, ri.k, j, n)
		if !f.Secret {
			fmt.Fprintf(&b, "_t_fdata_%d_%d=%s\n", ri.k, j, shQuote(f.Content))
		}
	}
	return b.String()
}

// checkFiles refuses the platform files of r that the Slurm target cannot
// place: a role in a container (Apptainer and Pyxis get no private view of
// jobshift's), a path the task view cannot bind, content a shell value
// cannot carry. A Secret's content is never quoted in a refusal.
func checkFiles(r *jobs.Role, st settings) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, f := range r.Files {
		p := f.Pos
		if p.IsZero() {
			p = r.Pos
		}
		switch err := taskns.CheckPath(f.Path); {
		case st.Container != "none" && r.Image != "":
			diags = append(diags, jobs.Errorf(p, refused, "Role %s needs the platform file %s, which jobshift places only for tasks on the node itself; run it with slurm { container = \"none\" }, or on Nomad or locally.", r.Name, f.Path))
		case err != nil:
			diags = append(diags, jobs.Errorf(p, refused, "Role %s: platform file %s cannot be placed: %v.", r.Name, f.Path, err))
		case strings.IndexByte(f.Content, 0) >= 0:
			diags = append(diags, jobs.Errorf(p, refused, "Role %s: the content of platform file %s holds a NUL byte, which the batch script cannot carry; run the job on Nomad or locally.", r.Name, f.Path))
		}
	}
	return diags
}
