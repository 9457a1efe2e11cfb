package pai

import (
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// The LeinaoPAI dialect (spec/pai.md §3.4, seed 000): a 2018 OpenPAI fork
// that ran containers with docker port mapping. Every container had three
// ports, 10001–10003 inside, mapped to random host ports, and user code reads
// PAI_PORT_LIST_<role>_<i>="ip,p1,p2,p3", PAI_PORT_MAP_1000x and
// PAI_TASK_ROLE_<role>_HOST_LIST (IPs only). Its job files are plain v1 JSON,
// so the dialect is recognised from what the file refers to.

// Dialect names accepted in jobs.ReadOptions.Dialect.
const (
	DialectLeinao = "leinao"
	// DialectPAI forces upstream OpenPAI semantics (no dialect detection).
	DialectPAI = "pai"
)

var (
	// The LeinaoPAI registry every LeinaoPAI example pulls from.
	leinaoRegistry = "10.11.3.8:5000/"
	// Variables only LeinaoPAI defined: the port map, and the per-task port
	// list without a label suffix (upstream always has _<label>).
	leinaoVarRe = regexp.MustCompile(`PAI_PORT_MAP_1000[1-3]|PAI_PORT_LIST_[A-Za-z0-9_.~-]+?_[0-9]+\b`)
	// The storage mounts of the LeinaoPAI (BitaHub) cluster.
	leinaoMountRe = regexp.MustCompile(`(^|[\s'"=:;])/(userhome|gdata|gshare)(/|\b)`)
)

// detectLeinao reports whether a v1 job looks like a LeinaoPAI job, with
// the reason as a warning so that a wrong guess is visible and can be
// overridden with -dialect pai.
func (r *v1reader) detectLeinao(root *jnode) bool {
	var reason string
	var at jobs.Pos
	if img := root.get("image"); img != nil && img.Kind == jString && strings.HasPrefix(img.Str, leinaoRegistry) {
		reason, at = "the image comes from the LeinaoPAI registry "+strings.TrimSuffix(leinaoRegistry, "/"), img.Pos
	}
	if reason == "" {
		for _, role := range r.job.Roles {
			cmd := role.Command.Script
			if m := leinaoVarRe.FindString(cmd); m != "" && !upstreamPortList(cmd, m) {
				reason, at = "the command reads "+m+", which only LeinaoPAI defined", role.Command.Pos
				break
			}
			if m := leinaoMountRe.FindStringSubmatch(cmd); m != nil {
				reason, at = "the command uses /"+m[2]+", a LeinaoPAI cluster mount", role.Command.Pos
				break
			}
		}
	}
	if reason == "" {
		return false
	}
	r.Warnf(at, "LeinaoPAI dialect detected",
		"Read as a LeinaoPAI job because %s: every task gets three ports (container ports 10001–10003) and the leinao environment contract instead of OpenPAI's. Use -dialect pai to read it as upstream OpenPAI.", reason)
	return true
}

// upstreamPortList reports whether match (PAI_PORT_LIST_<r>_<i>) is really
// the prefix of an upstream labelled variable PAI_PORT_LIST_<r>_<i>_<label>.
func upstreamPortList(cmd, match string) bool {
	i := strings.Index(cmd, match) + len(match)
	return i < len(cmd) && cmd[i] == '_'
}

// applyLeinao turns a v1 job into a LeinaoPAI job: the dialect is recorded,
// the leinao contract replaces pai/pai-yarn, and every role gets the three
// mapped container ports as one implicit group. OpenPAI's implicit ssh/http
// ports are not added: LeinaoPAI containers had exactly three ports.
func applyLeinao(job *jobs.Job) {
	job.Source.Dialect = DialectLeinao
	job.Contracts = []string{jobs.ContractLeinao}
	for _, role := range job.Roles {
		var ports []jobs.Port
		for _, p := range role.Ports {
			if !p.Implicit {
				ports = append(ports, p)
			}
		}
		role.Ports = append(ports, jobs.Port{Label: DialectLeinao, Count: 3, Implicit: true})
		role.Volumes = append(role.Volumes, leinaoMounts(role)...)
	}
}

// leinaoMounts are the LeinaoPAI cluster mounts (/gdata, /userhome,
// /gshare) role's command names, as volumes of kind "leinao" named after
// them: a site rule (volume "gdata" { path = ... }) shows the site's
// directory there. They are not marked Used: LeinaoPAI jobs ran on nodes
// that had these paths, and a node that has them still runs the job as
// it did without a rule.
func leinaoMounts(role *jobs.Role) []jobs.Volume {
	var out []jobs.Volume
	seen := map[string]bool{}
	for _, m := range leinaoMountRe.FindAllStringSubmatch(role.Command.Script, -1) {
		if name := m[2]; !seen[name] {
			seen[name] = true
			out = append(out, jobs.Volume{Name: name, Kind: "leinao", Source: name, MountPath: "/" + name, Pos: role.Command.Pos})
		}
	}
	return out
}
