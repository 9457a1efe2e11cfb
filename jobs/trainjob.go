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
