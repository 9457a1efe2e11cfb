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
// template; otherwise two templates carry them (the script is re-executed
// from its path inside the namespace, so it is a file, not `sh -c`
// text), plus one per platform file.

// The view's files in the task directory, and the placeholders in the
// encoded spec for what only the client knows (intask's: nomad-env fills
// them as the templates do).
const (
	viewScriptFile = intask.ViewScriptFile
	viewSpecFile   = intask.ViewSpecFile
	viewFilesDir   = intask.ViewFilesDir
	viewScratchDir = intask.ViewScratchDir
	phIndex        = intask.PhIndex
	phAddr         = intask.PhAddr
	phTaskDir      = intask.PhTaskDir
)

// viewOf is what the main task gets of its view: uc under the wrapper
// (WrapTaskNS) with the templates of its files, or with the view nomad-env
// writes instead (ViewInTask); or a container's volumes and templates.
func (r *renderer) viewOf(role *jobs.Role, gs *GroupShape, ws []Wrapper, net *api.NetworkResource, uc *userCommand, proc string) (taskView, bool) {
	switch {
	case has(ws, WrapTaskNS):
		return r.taskView(role, gs, net, uc)
	case gs.Traits.Container && len(role.Files) > 0 && proc == "":
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
	var tmpls []*api.Template
	for i, f := range role.Files {
		if !r.placeable(role, f) {
			return taskView{}, false
		}
		src := fmt.Sprintf("%s/%d", viewFilesDir, i)
		spec.Binds = append(spec.Binds, taskns.Bind{Src: phTaskDir + "/" + src, Dst: f.Path, ReadOnly: true})
		tmpls = append(tmpls, viewTemplate("local/"+src, templateBase64(f.Content), fileMode(f.Mode)))
	}
	spec.Binds = append(spec.Binds, viewBinds(gs)...) // the site's volumes (mounts.go)
	text, err := spec.Encode(taskns.ModeAuto)
	if err != nil {
		r.errorf(role.Pos, "Task namespace", "Role %q: %v", role.Name, err)
		return taskView{}, false
	}
	out := *uc
	out.argv = taskns.Wrap("${NOMAD_TASK_DIR}/"+viewScriptFile, "${NOMAD_TASK_DIR}/"+viewSpecFile, uc.argv)
	if gs.View == ViewInTask {
		v := &intask.View{Spec: string(text), AddrVar: addrVarOf(net), Files: viewFiles(role)}
		return taskView{uc: &out, inTask: v}, true
	}
	tmpls = append(tmpls,
		viewTemplate("local/"+viewScriptFile, templateBase64(taskns.Script), "0644"),
		viewTemplate("local/"+viewSpecFile, specTemplate(string(text), addrOf(net)), "0644"))
	return taskView{uc: &out, tmpls: tmpls}, true
}

// viewFiles are role's platform files as nomad-env writes them.
func viewFiles(role *jobs.Role) []intask.ViewFile {
	var out []intask.ViewFile
	for _, f := range role.Files {
		out = append(out, intask.ViewFile{Content: f.Content, Mode: f.Mode})
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
		src := fmt.Sprintf("local/%s/%d", viewFilesDir, i)
		tmpls = append(tmpls, viewTemplate(src, templateBase64(f.Content), fileMode(f.Mode)))
		vols = append(vols, src+":"+f.Path+":ro")
	}
	return vols, tmpls, true
}

// placeable: file f can be delivered on Nomad (else an error is recorded).
func (r *renderer) placeable(role *jobs.Role, f jobs.File) bool {
	if err := taskns.CheckPath(f.Path); err != nil || strings.Contains(f.Path, ":") {
		r.errorf(f.Pos, "Bad file path", "Role %q: the platform file %q cannot be placed: %v.", role.Name, f.Path, err)
		return false
	}
	if f.Secret {
		r.errorf(f.Pos, "Secret file not delivered on Nomad", "Role %s: the file %s holds a Kubernetes Secret's value; jobshift delivers such files locally (jobshift run -to local) but not yet on Nomad, where the value would be written into the job specification. Nothing was rendered.", role.Name, f.Path)
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
		case phAddr:
			b.WriteString(addr)
		case phTaskDir:
			b.WriteString(`{{ env "NOMAD_TASK_DIR" }}`)
		}
		text = text[i+len(ph):]
	}
	return b.String()
}

// nextPlaceholder is the first placeholder in s and its index (-1: none).
func nextPlaceholder(s string) (int, string) {
	at, which := -1, ""
	for _, ph := range []string{phIndex, phAddr, phTaskDir} {
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
