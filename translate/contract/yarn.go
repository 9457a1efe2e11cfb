package contract

import (
	"sort"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// yarn is the pai-yarn contract: the names OpenPAI v0.11–v0.14 gave v1 JSON
// jobs (spec/pai.md §3.2), in the order yarnContainerScript.mustache wrote
// its docker env-file. Role names are used as given (no conversion).
func (b *builder) yarn() { b.yarnVars(false) }

// yarnVars writes the pai-yarn names. With leinao (the YARN-era base of the
// LeinaoPAI contract) the ports are LeinaoPAI's: its three mapped ports are
// not a YARN port label (they have names of their own, see leinao), and a
// LeinaoPAI container had no http/ssh ports, so the names derived from
// them (PAI_CONTAINER_HOST_PORT, PAI_CONTAINER_SSH_PORT,
// PAI_CURRENT_CONTAINER_PORT, the ip:http host lists) are written only for
// a role that declares such a port; LeinaoPAI's own IP-only host lists
// follow in leinao. A port label the job declares itself is exported like
// any YARN label.
func (b *builder) yarnVars(leinao bool) {
	j, user, k := b.job, b.opts.User, b.self
	r := j.Roles[k]
	portsOf := func(r *jobs.Role) []jobs.Port {
		if !leinao {
			return r.Ports
		}
		var out []jobs.Port
		for _, p := range r.Ports {
			if !(p.Implicit && p.Label == LeinaoLabel) {
				out = append(out, p)
			}
		}
		return out
	}
	// hasPort: every pai-yarn role has http and ssh (check); a LeinaoPAI
	// role only when it declares them.
	hasPort := func(r *jobs.Role, label string) bool {
		p := findPort(r, label)
		return !leinao || p != nil && p.Count > 0
	}
	fw := user + "~" + j.Name
	names := strings.Join(roleNames(j), ",")
	b.setLit("FRAMEWORK_NAME", fw)
	b.setLit("HADOOP_USER_NAME", user)
	b.set("PAI_TASK_INDEX", index(0))
	b.set("PAI_CONTAINER_HOST_IP", addr(k, self))
	b.set("PAI_CONTAINER_HOST_PORT_LIST", containerPortList(k, portsOf(r)))
	b.setLit("PAI_JOB_NAME", fw)
	b.setLit("PAI_USER_NAME", user)
	b.setLit("PAI_DEFAULT_FS_URI", "")
	b.setLit("PAI_TASK_ROLE_COUNT", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_TASK_ROLE_LIST", names)
	b.setLit("PAI_RESOURCE", resource(r, r.Resources.ShmMiB))
	b.setLit("PAI_MIN_FAILED_TASK_COUNT_"+r.Name, minCount(r.MinFailed, 1))
	b.setLit("PAI_MIN_SUCCEEDED_TASK_COUNT_"+r.Name, minCount(r.MinSucceeded, r.Instances))
	b.setLit("PAI_CURRENT_TASK_ROLE_NAME", r.Name)
	b.set("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", index(0))
	for _, p := range portsOf(r) {
		b.set("PAI_CONTAINER_HOST_"+p.Label+"_PORT_LIST", ports(k, self, p.Label))
	}
	if hasPort(r, "http") {
		b.set("PAI_CONTAINER_HOST_PORT", port(k, self, "http", 0))
	}
	if hasPort(r, "ssh") {
		b.set("PAI_CONTAINER_SSH_PORT", port(k, self, "ssh", 0))
	}

	// get_host_list iterates `jq keys`, which sorts the role names.
	order := make([]int, len(j.Roles))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool { return j.Roles[order[a]].Name < j.Roles[order[c]].Name })
	for _, rk := range order {
		rr := j.Roles[rk]
		what := "yarn-dynamic"
		if leinao {
			what = "leinao-dynamic"
		}
		b.setShared(what, rk, func() []def {
			ps := portsOf(rr)
			out := make([]def, 0, rr.Instances*(2*len(ps)+1))
			for i := range rr.Instances {
				is := strconv.Itoa(i)
				out = append(out, def{name: "PAI_HOST_IP_" + rr.Name + "_" + is, val: addr(rk, i)})
				for _, p := range ps {
					v := ports(rk, i, p.Label) // one value, two names
					out = append(out, def{name: "PAI_PORT_LIST_" + rr.Name + "_" + is + "_" + p.Label, val: v},
						def{name: "PAI_" + rr.Name + "_" + is + "_" + p.Label + "_PORT", val: v})
				}
			}
			return out
		})
		b.setLit("PAI_TASK_ROLE_TASK_COUNT_"+rr.Name, strconv.Itoa(rr.Instances))
		if hasPort(rr, "http") {
			b.set("PAI_TASK_ROLE_"+rr.Name+"_HOST_LIST", b.sharedExpr("hostList", rk, func() expr { return hostList(rk, rr.Instances) }))
		}
	}

	// "# Backward compatibility" block.
	b.set("PAI_CURRENT_CONTAINER_IP", addr(k, self))
	b.set("PAI_TASK_ROLE_INDEX", index(0))
	b.setLit("PAI_USERNAME", user)
	b.setLit("PAI_DATA_DIR", b.v1Path(j.DataDir))
	b.setLit("PAI_OUTPUT_DIR", b.v1Path(j.OutputDir))
	b.setLit("PAI_CODE_DIR", b.v1Path(j.CodeDir))
	b.setLit("PAI_TASK_ROLE_NAME", r.Name)
	b.setLit("PAI_TASK_ROLE_NUM", strconv.Itoa(r.Instances))
	b.setLit("PAI_CURRENT_TASK_ROLE_TASK_COUNT", strconv.Itoa(r.Instances))
	b.setLit("PAI_TASK_CPU_NUM", cpu(r))
	b.setLit("PAI_CURRENT_TASK_ROLE_CPU_COUNT", cpu(r))
	mem := strconv.FormatInt(r.Resources.MemoryMiB, 10)
	b.setLit("PAI_TASK_MEM_MB", mem)
	b.setLit("PAI_CURRENT_TASK_ROLE_MEM_MB", mem)
	gpu := strconv.Itoa(r.Resources.GPU)
	b.setLit("PAI_TASK_GPU_NUM", gpu)
	b.setLit("PAI_CURRENT_TASK_ROLE_GPU_COUNT", gpu)
	b.setLit("PAI_CURRENT_TASK_ROLE_SHM_MB", strconv.FormatInt(r.Resources.ShmMiB, 10))
	b.setLit("PAI_CURRENT_TASK_ROLE_MIN_FAILED_TASK_COUNT", minCount(r.MinFailed, 1))
	b.setLit("PAI_CURRENT_TASK_ROLE_MIN_SUCCEEDED_TASK_COUNT", minCount(r.MinSucceeded, r.Instances))
	total := strconv.Itoa(j.TaskCount())
	b.setLit("PAI_TASKS_NUM", total)
	b.setLit("PAI_JOB_TASK_COUNT", total)
	b.setLit("PAI_TASK_ROLES_NUM", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_JOB_TASK_ROLE_COUNT", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_TASK_ROLE_LIST", names)
	b.setLit("PAI_JOB_TASK_ROLE_LIST", names)
	if hasPort(r, "http") {
		b.set("PAI_CURRENT_CONTAINER_PORT", port(k, self, "http", 0))
	}
}

// v1Path applies the submission-time substitutions of models/v1/job/yarn.js
// putJobAsync to dataDir/outputDir/codeDir: the first $PAI_DEFAULT_FS_URI
// becomes the (here empty) default FS URI, every $PAI_JOB_NAME the bare job
// name and every $PAI_USER_NAME / $PAI_USERNAME the user, each only when
// not followed by a word character.
func (b *builder) v1Path(s string) string {
	s = strings.Replace(s, "$PAI_DEFAULT_FS_URI", "", 1)
	s = replaceVar(s, "$PAI_JOB_NAME", b.job.Name)
	s = replaceVar(s, "$PAI_USER_NAME", b.opts.User)
	return replaceVar(s, "$PAI_USERNAME", b.opts.User)
}

// replaceVar replaces every v in s not followed by [A-Za-z0-9_] (the
// JavaScript lookahead (?![\w\d])), scanning left to right.
func replaceVar(s, v, with string) string {
	var out strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			out.WriteString(s)
			return out.String()
		}
		end := i + len(v)
		if end < len(s) && isWord(s[end]) {
			out.WriteString(s[:end])
		} else {
			out.WriteString(s[:i] + with)
		}
		s = s[end:]
	}
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
