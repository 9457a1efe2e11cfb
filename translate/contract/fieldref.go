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
//     jobshift's tasks are single-stack).
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
