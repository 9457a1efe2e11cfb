package contract

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// fieldRefIndex stands for the task's index in the pod name built by
// HostNamesAt; it cannot occur in a job or role name.
const fieldRefIndex = "\x00"

// fieldRefs defines the role's env variables that take a field of the pod
// (jobs.EnvVar.FieldPath, a Kubernetes downward-API fieldRef): every task
// gets its own value, whatever contracts the job has.
//
//   - metadata.name: the pod's name, which is its host name (HostNames'
//     first name: Kubeflow <job>-<replica>-<i>, Volcano <job>-<task>-<i>,
//     Trainer/JobSet <job>-<rjob>-<j>-<i>);
//   - status.podIP, status.podIPs: the task's own address (one address:
//     jobshift's tasks are single-stack);
//   - spec.nodeName: the name of the node the task runs on, and
//     status.hostIP, status.hostIPs: that node's address (one: nodes are
//     single-stack too), known only at run time, as the kubelet gives them
//     (pkg/kubelet/kubelet_pods.go podFieldSelectorRuntimeValue @v1.31.0:
//     pod.Spec.NodeName; hostIPs[0], and hostIPs comma-joined). The target
//     puts them in the topology (TaskTopology.Node, NodeAddr): local, the
//     machine's host name and primary address; Slurm, the node's name
//     (SLURMD_NODENAME) and NodeAddr; Nomad, the client's node.unique.name
//     and attr.unique.network.ip-address.
//
// A later contract variable of the same name replaces it: the operators
// append their env after the user's and Kubernetes keeps the later entry.
func (b *builder) fieldRefs() {
	for _, e := range b.job.Roles[b.self].Env {
		switch e.FieldPath {
		case jobs.FieldPodName:
			b.set(e.Name, podName(b.job, b.self))
		case jobs.FieldPodIP, jobs.FieldPodIPs:
			b.set(e.Name, addr(b.self, self))
		case jobs.FieldNodeName:
			b.set(e.Name, nodeExpr(b.self, nodeName))
		case jobs.FieldHostIP, jobs.FieldHostIPs:
			b.set(e.Name, nodeExpr(b.self, nodeAddr))
		}
	}
}

// podName is the expression of task self's pod name in role k.
func podName(job *jobs.Job, k int) expr {
	parts := strings.Split(HostNamesAt(job, k, fieldRefIndex)[0], fieldRefIndex)
	var es []expr
	for i, p := range parts {
		if i > 0 {
			es = append(es, index(0))
		}
		if p != "" {
			es = append(es, lit(p))
		}
	}
	return cat(es...)
}

// What of its node a pNode part is.
const (
	nodeName = 0
	nodeAddr = 1
)

// nodeExpr is the evaluating task's node name or address (what) in role k.
func nodeExpr(k, what int) expr { return expr{{kind: pNode, role: k, idx: self, n: what}} }

// UsesNode reports whether some task's contract names its node (a fieldRef
// of spec.nodeName, status.hostIP or status.hostIPs): then the topology
// must give every task's node (TaskTopology.Node, NodeAddr), and Shell
// reads them (JS_R<k>_NODE_<i>, JS_R<k>_HOSTIP_<i>).
func UsesNode(job *jobs.Job) bool {
	if job == nil {
		return false
	}
	for _, r := range job.Roles {
		for _, e := range r.Env {
			switch e.FieldPath {
			case jobs.FieldNodeName, jobs.FieldHostIP, jobs.FieldHostIPs:
				return true
			}
		}
	}
	return false
}
