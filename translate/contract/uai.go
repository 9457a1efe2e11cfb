package contract

import "github.com/jobshift/jobshift/jobs"

// uai is UCloud UAI Train's TF_CONFIG (seed 002). A UAI job is one role of
// N nodes, all running the same image and entrypoint; every node runs a
// parameter-server process and a training process, told apart only by
// TF_CONFIG. The cluster is
//
//	master: [node0:port-worker]
//	ps:     [node0:port-ps, ..., nodeN-1:port-ps]
//	worker: [node1:port-worker, ..., nodeN-1:port-worker]
//
// How the seed's task list is read: the seed shows node 0 running
// {"type":"ps","index":0} and {"type":"worker","index":0} and says "the
// other nodes likewise". Taken literally, node 0's training task would be
// worker 0, which the cluster lists as node 1, and node N-1 would be worker
// N-1, which does not exist. The only reading consistent with the cluster
// (and with the seed's remark that master is the chief) is: node 0's
// training task is {"type":"master","index":0}, node i ≥ 1's is
// {"type":"worker","index":i-1}, and node i's ps process is
// {"type":"ps","index":i}. jobshift implements that reading.
//
// Ports: each node needs two, port-ps and port-worker. UAI chose them
// itself; no UAI user declared ports. When the role declares two or more
// (non-implicit) port slots, the first two in declaration order are used:
// the first is port-ps, the second port-worker (so `portList: [{label: uai,
// portNumber: 2}]` or two labels both work). Otherwise the contract asks the
// drivers for two more ports under UAILabel (PortLabels), and any port the
// role does declare stays the user's own. A one-node job gets no
// TF_CONFIG (UAI ran the same code as single-node training) and no ps
// process. The JSON is compact, keys in the seed's order (cluster, task,
// environment; inside task: type, index); UAI's own byte layout is not
// documented.
func (b *builder) uai() {
	j := b.job
	r := j.Roles[0]
	if r.Instances < 2 {
		return
	}
	sl := uaiSlots(r)
	ps, wk := sl[0], sl[1]
	cluster := cat(
		lit(`{"cluster":{"master":[`), host(0, 0, wk.label, wk.n),
		lit(`],"ps":[`), join(r.Instances, ",", func(i int) expr { return host(0, i, ps.label, ps.n) }),
		lit(`],"worker":[`), join(r.Instances-1, ",", func(i int) expr { return host(0, i+1, wk.label, wk.n) }),
		lit(`]},"task":`))
	var task expr
	if b.opts.Process == ProcessPS {
		task = cat(lit(`{"type":"ps","index":`), index(0), lit(`}`))
	} else {
		task = cond(lit(`{"type":"master","index":0}`), cat(lit(`{"type":"worker","index":`), index(-1), lit(`}`)))
	}
	b.set("TF_CONFIG", cat(cluster, task, lit(`,"environment":"cloud"}`)))
}

func checkUAI(j *jobs.Job, bad func(jobs.Pos, string, string, ...any)) {
	if len(j.Roles) != 1 {
		bad(j.NamePos, "UAI Train jobs have one role", "The uai contract describes a single-role job of N nodes; this job has %d roles.", len(j.Roles))
		return
	}
	r := j.Roles[0]
	if r.Instances < 2 || len(declaredSlots(r)) >= 2 {
		return
	}
	if p := findPort(r, UAILabel); p != nil {
		bad(p.Pos, "UAI Train needs two ports per node", "Role %q declares port label %q with %d port(s); a UAI node serves a parameter server and a training task, and jobshift gives them two ports under that label itself. Remove the label, or declare two ports in all (e.g. ports: {uai: 2}).", r.Name, UAILabel, p.Count)
	}
}

// uaiImplicit reports whether role k needs the two UAI ports added by the
// contract: a uai job of more than one node whose role declares fewer
// than two ports.
func uaiImplicit(j *jobs.Job, k int) bool {
	if len(j.Roles) != 1 || k != 0 {
		return false
	}
	r := j.Roles[0]
	return r.Instances > 1 && len(declaredSlots(r)) < 2 && findPort(r, UAILabel) == nil
}

// uaiSlots are port-ps and port-worker of a UAI node: the role's first two
// declared ports, else the two under UAILabel that PortLabels adds.
func uaiSlots(r *jobs.Role) []slot {
	if sl := declaredSlots(r); len(sl) >= 2 {
		return sl[:2]
	}
	return []slot{{UAILabel, 0}, {UAILabel, 1}}
}
