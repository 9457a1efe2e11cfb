package nomad

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// A main task of a plain-process driver (raw_exec, exec: the shape's
// WrapTaskNS) runs under the task namespace wrapper (drivers/taskns), as
// the local driver's and Slurm's tasks do: its platform host name
// (contract.HostNamesAt, the allocation's index filled in by the
// template), an /etc/hosts where its own names resolve to its address,
// the role's platform files (jobs.Role.Files: Volcano's
// /etc/volcano/<task>.host) at the job's own paths, and the interface of
// its address named for OpenMPI, Gloo and NCCL. Nomad renders before it
// knows its nodes, so the spec's mode is auto: the wrapper probes the
// client (root, then unprivileged user namespaces, else the host's name
// with a warning on the task's stderr). Like local's, the /etc/hosts holds
// the task's own names only: peers are reached through the contract's
// addresses and the ssh emulation's client config.
//
// How its files arrive is the shape's (GroupShape.View): where nomad-env
// runs first (EnvInTask) it writes the script, the spec and the platform
// files before it execs the wrapper (intask.View), so the task has no
// template for them; it lists the node's addresses for the wrapper and,
// when the spec has no binds, gives the task its view itself with no
// wrapper run at all (taskns.ExecDirect), else as root makes the
// namespaces for it; otherwise two templates carry them (the script is
// re-executed from its path inside the namespace, so it is a file, not
// `sh -c` text), plus one per platform file. A Secret's file always comes
// by template, into secrets/ from the job's Variable (secretenv.go), so
// that no value is in the job.

// The view's files in the task directory, and the placeholders in the
// encoded spec for what only the client knows (intask's: nomad-env fills
// them as the templates do).
const (
	viewScriptFile = intask.ViewScriptFile
	viewSpecFile   = intask.ViewSpecFile
	viewFilesDir   = intask.ViewFilesDir
	viewScratchDir = intask.ViewScratchDir
	viewEmptyDir   = "jobshift-emptydir" // in the allocation directory
	phIndex        = intask.PhIndex
	phAttempt      = intask.PhAttempt
	phAddr         = intask.PhAddr
	phTaskDir      = intask.PhTaskDir
	phSecretsDir   = intask.PhSecretsDir
	phAllocDir     = intask.PhAllocDir
)

// sshFilesDir is where the ssh emulation writes the platform's ssh files
// (translate.RolePlan.SSHFiles) for the view or the container to show at
// the job's path: in the secrets directory, as they hold the job key
// (Nomad's file API does not serve it).
const sshFilesDir = "secrets/jobshift-sshfiles"

// viewOf is what the main task gets of its view: uc under the wrapper
// (WrapTaskNS) with the templates of its files, or with the view nomad-env
// writes instead (ViewInTask); or a container's volumes and templates.
func (r *renderer) viewOf(role *jobs.Role, gs *GroupShape, ws []Wrapper, net *api.NetworkResource, uc *userCommand, proc string) (taskView, bool) {
	switch {
	case has(ws, WrapTaskNS):
		return r.taskView(role, gs, net, uc)
	case gs.Traits.Container && (len(role.Files) > 0 || r.sshFiles(role) != "") && proc == "":
		vols, tmpls, ok := r.containerFiles(role)
		return taskView{uc: uc, tmpls: tmpls, vols: vols}, ok
	}
	return taskView{uc: uc}, true
}

// taskView is a main task's view as rendered: its command, the templates
// and driver volumes of its files, or what nomad-env writes (inTask).
type taskView struct {
	uc     *userCommand
	tmpls  []*api.Template
	vols   []string
	inTask *intask.View
}

// taskView is uc in the task namespace wrapper with what delivers its
// files: the templates (the script, the spec and the role's platform
// files), or the spec nomad-env writes with the rest (gs.View); false when
// the view cannot be given (an error is recorded). The binds are the
// role's platform files and the shape's MountViewBind volumes.
func (r *renderer) taskView(role *jobs.Role, gs *GroupShape, net *api.NetworkResource, uc *userCommand) (taskView, bool) {
	k := slices.Index(r.plan.Job.Roles, role)
	names := contract.HostNamesAt(r.plan.Job, k, phIndex)
	spec := taskns.Spec{Addr: phAddr, Scratch: phTaskDir + "/" + viewScratchDir}
	if names = hostNames(names); len(names) > 0 {
		spec.Hostname, spec.Hosts = names[0], []taskns.Host{{Addr: phAddr, Names: names}}
	} else {
		r.diags = append(r.diags, jobs.Warnf(role.Pos, "No platform host name",
			"Role %q: the job's name makes no host name (it holds a space or a control character); its tasks keep their node's host name.", role.Name))
	}
	tmpls, files, ok := r.viewFileBinds(role, gs, &spec)
	if !ok {
		return taskView{}, false
	}
	if path := r.sshFiles(role); path != "" {
		if !r.sshFilesPlaceable(role, path) {
			return taskView{}, false
		}
		spec.Binds = append(spec.Binds, taskns.Bind{Src: phSecretsDir + "/jobshift-sshfiles", Dst: path, Private: true})
	}
	spec.Binds = append(spec.Binds, viewBinds(gs)...) // the site's volumes (mounts.go)
	if r.shape.TaskNets {
		// the tasks of the job's attempt on this client share one link: a
		// retry's tasks may start while the last attempt's still end there
		spec.Net = &taskns.Net{Key: netKey(namespaceFor(r.set, r.plan.User), r.plan.User, r.jobID), Range: taskns.NetRange(r.plan.Site.TaskNetRange())}
	}
	text, err := spec.Encode(taskns.ModeAuto)
	if err != nil {
		r.errorf(role.Pos, "Task namespace", "Role %q: %v", role.Name, err)
		return taskView{}, false
	}
	out := *uc
	out.argv = taskns.Wrap("${NOMAD_TASK_DIR}/"+viewScriptFile, "${NOMAD_TASK_DIR}/"+viewSpecFile, uc.argv)
	if gs.View == ViewInTask {
		v := &intask.View{Spec: string(text), AddrVar: addrVarOf(net), Files: files}
		return taskView{uc: &out, tmpls: tmpls, inTask: v}, true
	}
	tmpls = append(tmpls,
		viewTemplate("local/"+viewScriptFile, templateBase64(taskns.Script), "0644"),
		viewTemplate("local/"+viewSpecFile, specTemplate(string(text), addrOf(net)), "0644"))
	return taskView{uc: &out, tmpls: tmpls}, true
}

// viewFileBinds binds role's platform files at their paths in spec and
// says how each arrives: by template, or, where nomad-env writes the view
// (ViewInTask), in its payload; a Secret's file always by template (from
// the job's Variable: its value is never in the job). False when one cannot
// be placed (an error is recorded).
func (r *renderer) viewFileBinds(role *jobs.Role, gs *GroupShape, spec *taskns.Spec) ([]*api.Template, []intask.ViewFile, bool) {
	var tmpls []*api.Template
	var files []intask.ViewFile
	for i, f := range role.Files {
		if !r.placeable(role, f) {
			return nil, nil, false
		}
		tmpl, dir, rel := r.platformFile(role, i, f)
		src := map[string]string{"local": phTaskDir, "secrets": phSecretsDir}[dir] + "/" + rel
		spec.Binds = append(spec.Binds, taskns.Bind{Src: src, Dst: f.Path, ReadOnly: true})
		if gs.View == ViewInTask && !f.Secret {
			files = append(files, intask.ViewFile{Index: i, Content: f.Content, Mode: f.Mode})
		} else {
			tmpls = append(tmpls, tmpl)
		}
	}
	return tmpls, files, true
}

// viewFiles are role's platform files nomad-env writes (never a Secret's).
func viewFiles(role *jobs.Role) []intask.ViewFile {
	var out []intask.ViewFile
	for i, f := range role.Files {
		if !f.Secret {
			out = append(out, intask.ViewFile{Index: i, Content: f.Content, Mode: f.Mode})
		}
	}
	return out
}

// hostNames are the names an /etc/hosts line can carry (no space or
// control character), the host name first; a name the job's fields made
// unusable is left out, as the platform would have refused the job.
func hostNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n != "" && !strings.ContainsFunc(n, func(c rune) bool { return c <= ' ' || c == 0x7f }) {
			out = append(out, n)
		}
	}
	if len(out) < len(names) && len(out) > 0 && out[0] != names[0] {
		return nil // the host name itself is unusable
	}
	return out
}

// containerFiles are the role's platform files for a container task:
// templates in its task directory, bound at the job's paths through the
// driver's volumes (a path relative to the task directory, which docker
// and podman allow without the client's volumes option); false when one
// cannot be given (an error is recorded).
func (r *renderer) containerFiles(role *jobs.Role) (vols []string, tmpls []*api.Template, ok bool) {
	for i, f := range role.Files {
		if !r.placeable(role, f) {
			return nil, nil, false
		}
		tmpl, dir, rel := r.platformFile(role, i, f)
		tmpls = append(tmpls, tmpl)
		vols = append(vols, dir+"/"+rel+":"+f.Path+":ro")
	}
	if path := r.sshFiles(role); path != "" {
		if !r.sshFilesPlaceable(role, path) {
			return nil, nil, false
		}
		vols = append(vols, sshFilesDir+":"+path)
	}
	return vols, tmpls, true
}

// sshFiles is where role's tasks get the platform's ssh files ("" = none).
func (r *renderer) sshFiles(role *jobs.Role) string {
	if rp := r.plan.Compiled().Role(role.Name); rp != nil && rp.SSH {
		return rp.SSHFiles
	}
	return ""
}

// sshFilesPlaceable: the ssh files' path can be a mount point (else an
// error is recorded, located at the ssh plugin).
func (r *renderer) sshFilesPlaceable(role *jobs.Role, path string) bool {
	err := taskns.CheckPath(path)
	if err == nil && strings.Contains(path, ":") {
		err = fmt.Errorf("%q holds a ':', which a volume cannot take", path)
	}
	if err != nil {
		pos := role.Pos
		if v := r.plan.Job.Extras.Volcano; v != nil && v.Plugin("ssh") != nil {
			pos = v.Plugin("ssh").Pos
		}
		r.errorf(pos, "Bad ssh file path", "Role %q: the job's ssh files cannot be placed at %q: %v.", role.Name, path, err)
		return false
	}
	return true
}

// platformFile renders role's file i into the task directory: dir is the
// task directory's local or secrets, rel the file's path in it. A
// Secret's file comes from the job's Variable (secretFileTemplate).
func (r *renderer) platformFile(role *jobs.Role, i int, f jobs.File) (tmpl *api.Template, dir, rel string) {
	rel = fmt.Sprintf("%s/%d", viewFilesDir, i)
	if f.Secret {
		return viewTemplate("secrets/"+rel, r.secretFileTemplate(role, i), secretFileMode(f.Mode)), "secrets", rel
	}
	return viewTemplate("local/"+rel, templateBase64(f.Content), fileMode(f.Mode)), "local", rel
}

// placeable: file f can be delivered on Nomad (else an error is recorded).
func (r *renderer) placeable(role *jobs.Role, f jobs.File) bool {
	if err := taskns.CheckPath(f.Path); err != nil || strings.Contains(f.Path, ":") {
		r.errorf(f.Pos, "Bad file path", "Role %q: the platform file %q cannot be placed: %v.", role.Name, f.Path, err)
		return false
	}
	if _, ph := nextPlaceholder(f.Path); ph != "" {
		r.errorf(f.Pos, "Bad file path", "Role %q: the platform file %q cannot be placed: it holds %q, which jobshift's Nomad templates reserve.", role.Name, f.Path, ph)
		return false
	}
	return true
}

// addrOf is the template expression of the task's address: the address
// of its group's first port (addrVarOf), else the client's own (Nomad's
// template env function reads node attributes too).
func addrOf(net *api.NetworkResource) string {
	if v := addrVarOf(net); v != "" {
		return `{{ env "` + v + `" }}`
	}
	return `{{ env "attr.unique.network.ip-address" }}`
}

// addrVarOf is the task's variable holding the address of its group's
// first port (NOMAD_IP_<label>), "" when the group has none.
func addrVarOf(net *api.NetworkResource) string {
	if net != nil {
		for _, ps := range [][]api.Port{net.ReservedPorts, net.DynamicPorts} {
			if len(ps) > 0 {
				return "NOMAD_IP_" + ps[0].Label
			}
		}
	}
	return ""
}

// netKey is the key of the task network of job id's attempt (taskns.Net),
// which the client fills in (phAttempt). The namespace and the user are
// part of it: a key names the link its tasks join on the node, and the
// same job ID may run in two namespaces (another user's) on one client.
func netKey(ns, user, id string) string { return ns + "/" + user + "/" + id + "/" + phAttempt }

// TaskNetKey is the key of the task network of p's attempt (counted from
// 0) on Nomad, as its tasks' views give it to taskns.
func TaskNetKey(p *translate.Plan, attempt int) string {
	set, _ := settingsFor(p)
	return strings.Replace(netKey(namespaceFor(set, p.User), p.User, JobIDFor(p)), phAttempt, strconv.Itoa(attempt), 1)
}

// specTemplate is the encoded spec as a template: its literal text as
// base64Decode calls (no delimiter in a name or path is interpreted), the
// placeholders as the client's values.
func specTemplate(text, addr string) string {
	var b strings.Builder
	for text != "" {
		i, ph := nextPlaceholder(text)
		if i < 0 {
			b.WriteString(templateBase64(text))
			break
		}
		if i > 0 {
			b.WriteString(templateBase64(text[:i]))
		}
		switch ph {
		case phIndex:
			b.WriteString(`{{ env "NOMAD_ALLOC_INDEX" }}`)
		case phAttempt:
			b.WriteString(`{{ env "` + attemptEnv + `" }}`)
		case phAddr:
			b.WriteString(addr)
		case phTaskDir:
			b.WriteString(`{{ env "NOMAD_TASK_DIR" }}`)
		case phSecretsDir:
			b.WriteString(`{{ env "NOMAD_SECRETS_DIR" }}`)
		case phAllocDir:
			b.WriteString(`{{ env "NOMAD_ALLOC_DIR" }}`)
		}
		text = text[i+len(ph):]
	}
	return b.String()
}

// nextPlaceholder is the first placeholder in s and its index (-1: none).
func nextPlaceholder(s string) (int, string) {
	at, which := -1, ""
	for _, ph := range []string{phIndex, phAttempt, phAddr, phTaskDir, phSecretsDir, phAllocDir} {
		if i := strings.Index(s, ph); i >= 0 && (at < 0 || i < at) {
			at, which = i, ph
		}
	}
	return at, which
}

func templateBase64(s string) string {
	return `{{ base64Decode "` + base64.StdEncoding.EncodeToString([]byte(s)) + `" }}`
}

// fileMode is a platform file's permission bits as a template's perms.
func fileMode(m uint32) string {
	if m == 0 {
		m = 0o644
	}
	return "0" + strconv.FormatUint(uint64(m&0o777), 8)
}

// viewTemplate renders data once at dest (a restart of the task's command
// inside its wrapper keeps the view).
func viewTemplate(dest, data, perms string) *api.Template {
	return &api.Template{
		EmbeddedTmpl: new(data),
		DestPath:     new(dest),
		ChangeMode:   new("noop"),
		Once:         new(true),
		Perms:        new(perms),
	}
}

// containerHostName gives a docker task its platform host name, as the
// pod's: the driver's hostname option, and in the site's Docker network
// (GroupShape.Network) its names as network_aliases (Nomad v1.11.3 drivers/docker passes
// it to the container's config; Docker allows it in the host's network
// too, where the container keeps a UTS namespace of its own), and in the
// host's network an /etc/hosts line resolving its names to the task's
// address (extra_hosts; in a bridge network Docker writes the container's
// own address for its host name). Without it every container of a node
// had the node's name, which OpenMPI's shared-memory transport takes for
// one node. The allocation's index is interpolated by the client, and so
// are the peers' entries of Volcano's TensorFlow shape
// (contract.Options.PeerEntries), variables of the env template (Nomad
// interpolates the driver config with the task's environment, template
// variables included, after the prestart hooks rendered them).
func (r *renderer) containerHostName(role *jobs.Role, cfg map[string]any, net *api.NetworkResource, network string) {
	k := slices.Index(r.plan.Job.Roles, role)
	names := hostNames(contract.HostNamesAt(r.plan.Job, k, "${NOMAD_ALLOC_INDEX}"))
	if len(names) == 0 {
		return
	}
	cfg["hostname"] = names[0]
	if network != "" {
		// Docker writes the container's own address for its host name,
		// and its DNS resolves every alias of the network's containers:
		// no entry of /etc/hosts may say otherwise
		cfg["network_aliases"] = names
		return
	}
	if bridged(net) {
		return
	}
	addr := "${attr.unique.network.ip-address}"
	if net != nil {
		for _, ps := range [][]api.Port{net.ReservedPorts, net.DynamicPorts} {
			if len(ps) > 0 {
				addr = "${NOMAD_IP_" + ps[0].Label + "}"
				break
			}
		}
	}
	hosts := make([]string, len(names))
	for i, n := range names {
		hosts[i] = n + ":" + addr
	}
	if peerEntries(r.plan) {
		// every task's svc names, from the environment's template
		for n := range contract.PeerHostCount(r.plan.Job) {
			hosts = append(hosts, "${"+contract.PeerHostVar(n)+"}")
		}
	}
	cfg["extra_hosts"] = hosts
}
