package contract

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// pai is the OpenPAI k8s-era contract (spec/pai.md §3.1): the static env of
// runtime-env.js + k8s.js generateTaskRole, then the dynamic env of
// openpai-runtime framework_parser.py generate_runtime_env.
func (b *builder) pai() {
	j, user := b.job, b.opts.User
	fw := user + "~" + j.Name
	names := roleNames(j)
	b.setLit("PAI_FRAMEWORK_NAME", fw)
	b.setLit("PAI_JOB_NAME", fw)
	b.setLit("PAI_USER_NAME", user)
	b.setLit("PAI_DEFAULT_FS_URI", "")
	b.setLit("PAI_TASK_ROLE_COUNT", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_TASK_ROLE_LIST", strings.Join(names, ","))
	vc := j.VirtualCluster
	if vc == "" {
		vc = "default"
	}
	b.setLit("PAI_VIRTUAL_CLUSTER", vc)
	for _, r := range j.Roles {
		b.setLit("PAI_TASK_ROLE_TASK_COUNT_"+r.Name, strconv.Itoa(r.Instances))
		shm := int64(0)
		if r.Resources.ShmSet {
			shm = r.Resources.ShmMiB
		}
		b.setLit("PAI_RESOURCE_"+r.Name, resource(r, shm))
		b.setLit("PAI_MIN_FAILED_TASK_COUNT_"+r.Name, minCount(r.MinFailed, 1))
		b.setLit("PAI_MIN_SUCCEEDED_TASK_COUNT_"+r.Name, minCount(r.MinSucceeded, r.Instances))
	}
	b.setLit("PAI_USERNAME", user)
	b.setLit("PAI_TASKS_NUM", strconv.Itoa(j.TaskCount()))
	b.setLit("PAI_JOB_TASK_COUNT", strconv.Itoa(j.TaskCount()))
	b.setLit("PAI_TASK_ROLES_NUM", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_JOB_TASK_ROLE_COUNT", strconv.Itoa(len(j.Roles)))
	b.setLit("PAI_JOB_TASK_ROLE_LIST", strings.Join(names, ","))
	b.setLit("PAI_CURRENT_TASK_ROLE_NAME", j.Roles[b.self].Name)
	b.set("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", index(0))
	b.set("PAI_TASK_INDEX", index(0))

	var instances []string
	for k, r := range j.Roles {
		rn := convertName(r.Name)
		b.dynamicRole(k, rn)
		if k == b.self {
			b.currentContainer(k)
		}
		b.set("PAI_TASK_ROLE_"+rn+"_HOST_LIST", b.sharedExpr("hostList", k, func() expr { return hostList(k, r.Instances) }))
		for i := range r.Instances {
			instances = append(instances, rn+":"+strconv.Itoa(i))
		}
	}
	b.setLit("PAI_TASK_ROLE_INSTANCES", strings.Join(instances, ","))
}

// dynamicRole exports every task's ports and IP of role k under name rn
// (framework_parser.py order: per task, labels, then the IP).
func (b *builder) dynamicRole(k int, rn string) {
	b.setShared("pai-dynamic", k, func() []def {
		r := b.job.Roles[k]
		out := make([]def, 0, r.Instances*(2*len(r.Ports)+1))
		for i := range r.Instances {
			is := strconv.Itoa(i)
			for _, p := range r.Ports {
				ps := ports(k, i, p.Label) // one value, two names
				out = append(out, def{name: "PAI_PORT_LIST_" + rn + "_" + is + "_" + p.Label, val: ps},
					def{name: "PAI_" + rn + "_" + is + "_" + p.Label + "_PORT", val: ps})
			}
			out = append(out, def{name: "PAI_HOST_IP_" + rn + "_" + is, val: addr(k, i)})
		}
		return out
	})
}

// currentContainer is the block framework_parser.py writes for the task it
// runs in.
func (b *builder) currentContainer(k int) {
	r := b.job.Roles[k]
	b.set("PAI_CURRENT_CONTAINER_IP", addr(k, self))
	b.set("PAI_CURRENT_CONTAINER_PORT", port(k, self, "http", 0))
	b.set("PAI_CONTAINER_HOST_IP", addr(k, self))
	b.set("PAI_CONTAINER_HOST_PORT", port(k, self, "http", 0))
	b.set("PAI_CONTAINER_SSH_PORT", port(k, self, "ssh", 0))
	for _, p := range r.Ports {
		b.set("PAI_CONTAINER_HOST_"+p.Label+"_PORT_LIST", ports(k, self, p.Label))
	}
	b.set("PAI_CONTAINER_HOST_PORT_LIST", containerPortList(k, r.Ports))
}

// containerPortList is "<label>:<p>[,<p>];" for every label of ps (role
// k's), trailing ';'.
func containerPortList(k int, ps []jobs.Port) expr {
	var es []expr
	for _, p := range ps {
		es = append(es, lit(p.Label+":"), ports(k, self, p.Label), lit(";"))
	}
	return cat(es...)
}

// hostList is "<addr>:<http port>" of every task of role k, comma-joined.
func hostList(k, n int) expr {
	b := exprBuf{out: make(expr, 0, 4*n)}
	for i := range n {
		if i > 0 {
			b.addLit(",")
		}
		b.addPart(part{kind: pAddr, role: k, idx: i})
		b.addLit(":")
		b.addPart(part{kind: pPort, role: k, idx: i, label: "http"})
	}
	return b.expr()
}

func roleNames(j *jobs.Job) []string {
	out := make([]string, len(j.Roles))
	for k, r := range j.Roles {
		out[k] = r.Name
	}
	return out
}

// resource is "<gpu>,<cpu>,<memoryMB>,<shmMB>"; fractional CPUs print as
// JavaScript would (0.5).
func resource(r *jobs.Role, shm int64) string {
	return strconv.Itoa(r.Resources.GPU) + "," + cpu(r) + "," +
		strconv.FormatInt(r.Resources.MemoryMiB, 10) + "," + strconv.FormatInt(shm, 10)
}

func cpu(r *jobs.Role) string {
	return strconv.FormatFloat(float64(r.Resources.CPUMilli)/1000, 'f', -1, 64)
}

// minCount applies k8s.js "value if truthy, else default"; nil is a v1 JSON
// null, which only the YARN era saw: it exported an empty string.
func minCount(v *int, dflt int) string {
	switch {
	case v == nil:
		return ""
	case *v == 0:
		return strconv.Itoa(dflt)
	}
	return strconv.Itoa(*v)
}
