package contract

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// HostNames are the names task i of role k had on its platform: first the
// host name its pod or container had (what `hostname` printed there, what
// drivers give the task through a UTS namespace or a container's
// --hostname), then the other names its peers reached it by. Every name
// resolves to the task's address in its peers' /etc/hosts (drivers/taskns).
//
//   - a format with a hostNamers row (Volcano, Trainer/JobSet): its row;
//   - Kubeflow training-operator kinds (TFJob, PyTorchJob, XGBoostJob,
//     PaddleJob, JAXJob, MXJob): the pod name `<job>-<replica type in
//     lower case>-<i>` (kubeflow/common pkg/core/utils.go GenGeneralName,
//     which training-operator v1.x uses for pods and services alike);
//   - MPIJob: the pod name (`<job>-launcher`, `<job>-worker-<i>`; v2beta1
//     sets the pod hostname to it), then the hostfile's service-domain
//     name;
//   - OpenPAI: `<role>-<i>` with the role name converted, the name the ssh
//     plugin's /etc/ssh/ssh_config gave every container and what
//     `mpirun -H master-0,...` names (OpenPAI's own pod names embed a
//     framework digest no job could know).
func HostNames(job *jobs.Job, k, i int) []string {
	return HostNamesAt(job, k, strconv.Itoa(i))
}

// HostNamesAt is HostNames with idx in place of the decimal index: a
// placeholder a target substitutes at run time (the Slurm task's index).
func HostNamesAt(job *jobs.Job, k int, idx string) []string {
	if f := hostNamers[job.Source.Format]; f != nil {
		return f(job, k, idx)
	}
	switch job.Source.Format {
	case jobs.FormatTFJob, jobs.FormatPyTorchJob, jobs.FormatXGBoostJob, jobs.FormatPaddleJob, jobs.FormatJAXJob, jobs.FormatMXJob:
		r := job.Roles[k]
		rt := r.ReplicaType
		if rt == "" {
			rt = r.Name
		}
		return []string{strings.ReplaceAll(job.Name+"-"+strings.ToLower(rt)+"-"+idx, "/", "-")}
	case jobs.FormatMPIJob:
		names := sshAliasParts(job, k, idx)
		if len(names) == 2 {
			names[0], names[1] = names[1], names[0]
		}
		return names
	}
	return sshAliasParts(job, k, idx)
}
