package jobs

import "strconv"

// PodHost is the host name Kubernetes gave pod idx of role (a replicated
// job) of a TrainJob, and its fully qualified name in the JobSet's
// headless service: "<job>-<rjob>-<jobIndex>-<podIndex>" and that plus
// ".<subdomain>" (kubeflow/trainer pkg/runtime/framework/plugins/jobset/jobset.go
// @v2.3.0 PodNetwork endpoints; JobSet sets hostname and subdomain). idx
// is a decimal task index, or a placeholder the caller substitutes later,
// which is then taken as the pod index of Job 0.
func (t *Trainer) PodHost(job *Job, role string, idx string) (host, fqdn string) {
	jobIdx, podIdx := "0", idx
	if n, err := strconv.Atoi(idx); err == nil {
		if per := t.PodsPerJob[role]; per > 0 {
			jobIdx, podIdx = strconv.Itoa(n/per), strconv.Itoa(n%per)
		}
	}
	host = job.Name + "-" + role + "-" + jobIdx + "-" + podIdx
	return host, host + "." + t.Subdomain
}

// MPIHostfile is the MPI plugin's hostfile of a TrainJob with the mpi
// policy (kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi.go
// buildHostFileConfigMap @v2.3.0): for each node pod set in the runtime's
// order — the "node" job, and the launcher too when runLauncherAsNode —
// every pod's FQDN with "slots=<numProcPerNode>". "" without the policy.
func (t *Trainer) MPIHostfile(job *Job) string {
	m := job.Extras.MPI
	if t == nil || m == nil || t.Policy != "mpi" {
		return ""
	}
	var out []byte
	for _, r := range job.Roles {
		if r.Name != "node" && !(m.RunLauncherAsWorker && r.Name == t.TrainerRole) {
			continue
		}
		for i := range r.Instances {
			_, fqdn := t.PodHost(job, r.Name, strconv.Itoa(i))
			out = append(out, fqdn+" slots="+strconv.Itoa(m.SlotsPerWorker)+"\n"...)
		}
	}
	return string(out)
}
