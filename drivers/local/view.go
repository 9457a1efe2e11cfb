package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/internal/freshfile"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// Each task (without -docker) runs under drivers/taskns: its platform host
// name (contract.HostNames) in a private UTS namespace, an /etc/hosts where
// its own names resolve to its address (127.0.0.1 here), the
// role's platform files (Role.Files) and volumes at the job's own paths,
// and the interface of its address (lo) named for OpenMPI, Gloo and NCCL.
// The mode is probed once per driver: root, unprivileged user namespaces,
// or none — then a task that needs files or data at the job's paths is
// refused (located), and a warning says that host names stay this host's.

// taskView is what one task's wrapper gets, except the per-start scratch.
type taskView struct {
	spec  taskns.Spec
	files []viewFile
	dirs  []string // emptyDir volumes, made before each start
	// sshFiles is where the ssh emulation writes the platform's ssh
	// files (translate.RolePlan.SSHFiles): a private directory of each
	// start's is placed there.
	sshFiles string
	pos      jobs.Pos // what needs a mount namespace (first file or volume)
	needs    string   // its path, for the refusal
	mode     taskns.Mode
}

// viewFile is a platform file written at each start and bound at dst.
type viewFile struct {
	content []byte
	mode    os.FileMode
	dst     string
	secret  bool
}

func viewScriptPath(runDir string) string { return filepath.Join(runDir, "taskns.sh") }

// viewScript writes the wrapper once per run directory.
func viewScript(runDir string) error {
	path := viewScriptPath(runDir)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := freshfile.Write(path, []byte(taskns.Script), 0o644); err != nil {
		return fmt.Errorf("task namespace: %w", err)
	}
	return nil
}

// viewMode is the namespace mode of this driver's tasks, probed once.
func (d *Driver) viewMode() (taskns.Mode, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nsMode == "" {
		if d.opts.taskns != "" {
			d.nsMode, d.nsWhy = d.opts.taskns, errors.New("forced by the caller")
		} else {
			d.nsMode, d.nsWhy = taskns.Probe()
		}
	}
	return d.nsMode, d.nsWhy
}

// buildView is task ref's view; taskDir holds its emptyDir volumes. A
// volume a site rule maps (siteconfig.VolumeRule: a claim, a volume or a
// PAI storage name) shows the rule's path, ${user} being the job's user.
//
// Its /etc/hosts holds its own names only, as the kubelet's did (peers
// were found through the cluster DNS; here through the ssh emulation's
// client config): with every peer's name at 127.0.0.1, OpenMPI would take
// every peer for this node (orte_ifislocal) and refuse its hostfile.
func buildView(p *translate.Plan, ref jobs.TaskRef, taskDir string) (*taskView, error) {
	job := p.Job
	r := job.Role(ref.Role)
	k := slices.Index(job.Roles, r)
	names := contract.HostNames(job, k, ref.Index)
	v := &taskView{spec: taskns.Spec{Hostname: names[0], Hosts: []taskns.Host{{Addr: loopback, Names: names}}, Addr: loopback}}
	for _, f := range r.Files {
		if err := taskns.CheckPath(f.Path); err != nil {
			return nil, refuse(taskns.ErrValue, f.Pos, "Bad file path", "Role %q: the platform file %q cannot be placed: %v.", r.Name, f.Path, err)
		}
		v.files = append(v.files, viewFile{content: []byte(f.Content), mode: os.FileMode(f.Mode) & 0o777, dst: f.Path, secret: f.Secret})
		v.need(f.Pos, f.Path)
	}
	for _, vol := range r.Volumes {
		if err := v.volume(p, r, vol, taskDir); err != nil {
			return nil, err
		}
	}
	if rp := p.Compiled().Role(r.Name); rp != nil && rp.SSHFiles != "" {
		pos := sshFilesPos(job, r)
		if err := taskns.CheckPath(rp.SSHFiles); err != nil {
			return nil, refuse(taskns.ErrValue, pos, "Bad ssh file path", "Role %q: the job's ssh files cannot be placed at %q: %v.", r.Name, rp.SSHFiles, err)
		}
		v.sshFiles = rp.SSHFiles
		v.need(pos, rp.SSHFiles)
	}
	return v, nil
}

// sshFilesPos locates what asks for the ssh files: Volcano's ssh plugin,
// else the role (a TrainJob's runtime).
func sshFilesPos(job *jobs.Job, r *jobs.Role) jobs.Pos {
	if v := job.Extras.Volcano; v != nil && v.Plugin("ssh") != nil {
		return v.Plugin("ssh").Pos
	}
	return r.Pos
}

func (v *taskView) need(p jobs.Pos, path string) {
	if v.needs == "" {
		v.pos, v.needs = p, path
	}
}

// addViews gives every task of specs its view, or refuses the tasks that
// need files or data at the job's paths when no namespace is available.
// attempt is the run's attempt (0 the first): its tasks' networks are its own.
func (d *Driver) addViews(p *translate.Plan, specs []*taskSpec, attempt int) error {
	if d.opts.Docker {
		return nil
	}
	mode, why := d.viewMode()
	refused := &refusals{}
	for _, s := range specs {
		v, err := buildView(p, s.Ref, s.TaskDir)
		if err != nil {
			refused.merge(err)
			continue
		}
		if mode == taskns.ModeNone && v.needs != "" {
			refused.add(taskns.ErrUnavailable, v.pos, "No private mount namespace", "Role %q: %s", s.Ref.Role, taskns.Refusal(v.needs, why))
			continue
		}
		v.mode = mode
		if mode == taskns.ModeRoot && contract.VolcanoFixedPortPeers(p.Job) != "" {
			// each its own network, as each pod had: the tasks of this
			// attempt of the run share one link (netKey)
			v.spec.Net = &taskns.Net{Key: netKey(filepath.Dir(s.TaskDir), attempt), Range: taskns.NetRange(p.Site.TaskNetRange())}
		}
		s.View = v
		if s.PS != nil {
			s.PS.View = v
		}
	}
	return refused.err()
}

// namesResolve: the tasks run under the task view with a namespace, so
// the names a contract gives for peers resolve (contract HostsVar).
func (d *Driver) namesResolve() bool {
	if d.opts.Docker {
		return false
	}
	mode, _ := d.viewMode()
	return mode != taskns.ModeNone
}

// warnView says once per job that host names stay this host's, and that
// a job whose tasks fix their own port for their peers cannot run here
// unless each task gets its own network (root: addViews).
func (d *Driver) warnView(p *translate.Plan) {
	if d.opts.Docker || d.opts.Warnings == nil {
		return
	}
	mode, why := d.viewMode()
	if mode == taskns.ModeNone {
		fmt.Fprintf(d.opts.Warnings, "%s\n", taskns.Warning(why))
	}
	if role := contract.VolcanoFixedPortPeers(p.Job); role != "" && mode != taskns.ModeRoot {
		if why == nil {
			why = fmt.Errorf("the task namespaces are made in an unprivileged user namespace (mode %s)", mode)
		}
		fmt.Fprintf(d.opts.Warnings, "warning: role %s builds its peers' addresses from /etc/volcano/*.host with a port of its own, as on Kubernetes, where every pod had its own network; "+
			"here every task runs on this one host, and only root gives each task a network of its own on it (%v; a link between the tasks' network namespaces needs root on the host: "+
			"an unprivileged user namespace owns its network alone): the tasks share this host's ports (the second task cannot listen on that port) and a task's /etc/hosts names no peer. "+
			"Run jobshift as root, or the job on a multi-host Nomad or Slurm cluster with one task per host, "+
			"or read the addresses and ports jobshift gives (the env and svc plugins' variables, TF_CONFIG of the tensorflow plugin).\n", role, why)
	}
}

// wrapView puts argv (which ends with the task's own argv, user) under the
// wrapper, writing this start's spec and files under dir/ns. It returns
// the files to remove when the task ends (secret ones).
func wrapView(spec *taskSpec, argv, user []string, dir string) ([]string, []string, error) {
	v := spec.View
	scratch := filepath.Join(dir, "ns")
	if err := os.MkdirAll(filepath.Join(scratch, "files"), 0o700); err != nil {
		return nil, nil, err
	}
	ts := v.spec
	ts.Scratch = scratch
	ts.Binds = slices.Clone(ts.Binds)
	var secrets []string
	for n, f := range v.files {
		path := filepath.Join(scratch, "files", strconv.Itoa(n))
		fmode := f.mode
		if fmode == 0 {
			fmode = 0o644 // Kubernetes' defaultMode
		}
		if f.secret {
			fmode &= 0o700 // never readable by others on this machine
			secrets = append(secrets, path)
		}
		if err := freshfile.Write(path, f.content, fmode); err != nil {
			return nil, secrets, err
		}
		ts.Binds = append(ts.Binds, taskns.Bind{Src: path, Dst: f.dst, ReadOnly: true})
	}
	if err := makeEmptyDirs(v.dirs); err != nil {
		return nil, secrets, err
	}
	if v.sshFiles != "" {
		// fresh at each start; it will hold a copy of the job key, so it
		// goes when the task ends, as the secret files do
		src := filepath.Join(scratch, "ssh")
		if err := os.RemoveAll(src); err != nil {
			return nil, secrets, err
		}
		secrets = append(secrets, src)
		ts.Binds = append(ts.Binds, taskns.Bind{Src: src, Dst: v.sshFiles, Private: true})
	}
	data, err := ts.Encode(v.mode)
	if err != nil {
		return nil, secrets, err
	}
	specPath := filepath.Join(scratch, "spec")
	if err := os.WriteFile(specPath, data, 0o600); err != nil {
		return nil, secrets, err
	}
	wrapped := taskns.Wrap(viewScriptPath(filepath.Dir(spec.TaskDir)), specPath, user)
	wrapped[0] = lookPath(wrapped[0], spec.Env)
	return append(slices.Clone(argv[:len(argv)-len(user)]), wrapped...), secrets, nil
}

// startView checks the task's own program (the wrapper would report a
// missing one as its own failure) and wraps argv.
func startView(spec *taskSpec, argv, user []string, dir string) ([]string, []string, error) {
	base := spec.Dir
	if spec.Shared != "" {
		base = spec.Shared
	}
	if err := checkTaskProgram(spec, user, base); err != nil {
		return nil, nil, err
	}
	wrapped, secrets, err := wrapView(spec, argv, user, dir)
	if err != nil {
		return nil, secrets, fmt.Errorf("task namespace: %w", err)
	}
	return wrapped, secrets, nil
}

func removeAll(paths []string) {
	for _, p := range paths {
		_ = os.RemoveAll(p)
	}
}

// renderView says what the task's wrapper sets up (never a file's content).
func renderView(b *bytes.Buffer, v *taskView) {
	if v == nil {
		return
	}
	fmt.Fprintf(b, "  under: sh <run>/taskns.sh (host name %s, /etc/hosts line for %s; interface of %s named for OpenMPI, Gloo, NCCL unless set)\n",
		shellQuote(v.spec.Hostname), shellJoin(v.spec.Hosts[0].Names), v.spec.Addr)
	for _, bd := range v.spec.Binds {
		if bd.Empty != "" {
			fmt.Fprintf(b, "    emptyDir: %s (%s, %d MiB; 0: no limit)\n", shellQuote(bd.Dst), bd.Empty, bd.SizeMiB)
			continue
		}
		fmt.Fprintf(b, "    mount: %s at %s%s\n", shellQuote(bd.Src), shellQuote(bd.Dst), map[bool]string{true: " (read-only)"}[bd.ReadOnly])
	}
	if v.sshFiles != "" {
		fmt.Fprintf(b, "    ssh files: id_rsa, id_rsa.pub, authorized_keys, config at %s (written by the ssh emulation)\n", shellQuote(v.sshFiles))
	}
	for _, f := range v.files {
		what := fmt.Sprintf("%d bytes", len(f.content))
		if f.secret {
			what = "secret"
		}
		fmt.Fprintf(b, "    file: %s (%s, mode %04o)\n", shellQuote(f.dst), what, f.mode)
	}
}

// volume adds the bind that shows vol at its mount path, if any.
func (v *taskView) volume(p *translate.Plan, r *jobs.Role, vol jobs.Volume, taskDir string) error {
	var src string
	var mp siteconfig.Mapped
	ro := vol.ReadOnly
	switch rule := p.Site.Volume(vol.Source, vol.Name); {
	case rule != nil && rule.Path != "":
		var err error
		if mp, err = rule.Map(p.User, vol.SubPath); err == nil {
			src = mp.Src
			if err = inMappedTree(rule.Path, src); err != nil {
				err = fmt.Errorf("site rule volume %q maps it to %s on this machine, which cannot be shown: %w", rule.Pattern, src, err)
			}
		}
		if err != nil {
			return refuse(taskns.ErrValue, vol.Pos, "Volume cannot be mapped", "Role %q, volume %q: %v.", r.Name, vol.Name, err)
		}
		ro = ro || rule.ReadOnly
	case vol.Kind == "hostPath":
		src = vol.Source
	case vol.Kind == "emptyDir" && vol.Source == "Memory":
		// A tmpfs of its sizeLimit (Kubernetes' EmptyDirVolumeSource).
		if err := taskns.CheckPath(vol.MountPath); err != nil {
			return refuse(taskns.ErrValue, vol.Pos, "Bad mount path", "Role %q: volume %q cannot be mounted: %v.", r.Name, vol.Name, err)
		}
		v.spec.Binds = append(v.spec.Binds, taskns.Bind{Dst: vol.MountPath, Empty: taskns.EmptyMemory, SizeMiB: vol.SizeMiB})
		v.need(vol.Pos, vol.MountPath)
		return nil
	case vol.Kind == "emptyDir":
		// Per-task scratch, as each pod had its own.
		src = filepath.Join(taskDir, "volumes", pathPart(vol.Name))
		v.dirs = append(v.dirs, src)
	default:
		return nil // not provided here: the reader said so
	}
	if src == vol.MountPath {
		return nil // already at the job's path
	}
	if err := taskns.CheckPath(vol.MountPath); err != nil {
		return refuse(taskns.ErrValue, vol.Pos, "Bad mount path", "Role %q: volume %q cannot be mounted: %v.", r.Name, vol.Name, err)
	}
	v.spec.Binds = append(v.spec.Binds, taskns.Bind{Src: src, Dst: vol.MountPath, ReadOnly: ro, Tree: mp.Tree, NoLink: mp.NoLink})
	v.need(vol.Pos, vol.MountPath)
	return nil
}

// inMappedTree refuses a user's path that a symlink leads out of the
// user's own tree (/gpfs/home/${user}/data for alice: /gpfs/home/alice,
// which must be a directory there, not a link to bob's): one user's link
// must not show another's data to the task.
func inMappedTree(rulePath, src string) error {
	i := strings.Index(rulePath, "${user}")
	if i < 0 {
		return nil
	}
	rest := strings.TrimPrefix(src, rulePath[:i])
	user, _, _ := strings.Cut(rest, "/")
	userDir := rulePath[:i] + user
	realParent, err := filepath.EvalSymlinks(filepath.Dir(userDir))
	if err != nil {
		return err
	}
	realUser, err := filepath.EvalSymlinks(userDir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	if realUser != filepath.Join(realParent, user) || (real != realUser && !strings.HasPrefix(real, realUser+"/")) {
		return fmt.Errorf("%s leads to %s, outside the user's tree %s", src, real, userDir)
	}
	return nil
}

// makeEmptyDirs makes each emptyDir directory of dirs 0777, as the kubelet
// makes an emptyDir (pkg/volume/emptydir/empty_dir.go setupDir, v1.29):
// any user the task or its container becomes writes there (MkdirAll's
// mode is cut by the umask).
func makeEmptyDirs(dirs []string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o777); err != nil {
			return err
		}
	}
	return nil
}

// netKey is the key of the task network of attempt of the run in runDir
// (taskns.Net): a retry's tasks start while a task of the last attempt
// that outlived its process group (a daemon in its namespaces) may still
// hold that attempt's link, whose addresses the new tasks take again.
func netKey(runDir string, attempt int) string {
	return fmt.Sprintf("%s/attempt-%d", runDir, attempt+1)
}
