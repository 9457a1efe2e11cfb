package local

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestV1alpha1ChiefEndsJob: a kubeflow.org/v1alpha1 TFJob ends with its
// chief. The master exits 1 under OnFailure and is not restarted (the
// operator read its LastTerminationState: 1-127 is permanent,
// pkg/trainer/replicas.go @v0.1.0); the worker's exit 2 decided nothing.
func TestV1alpha1ChiefEndsJob(t *testing.T) {
	job := kube(jobs.FormatTFJob, "v1a1", nil,
		kubeRole("master", "master", 1, "OnFailure", "sh", "-c", "sleep 1; exit 1"),
		kubeRole("worker", "worker", 1, "Never", "sh", "-c", "exit 2"))
	job.Source.Version = "kubeflow.org/v1alpha1"
	res, dir, evs := runJob(t, job, Options{})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 1 {
		t.Errorf("result = %+v, want failed with the master's 1", res)
	}
	want := map[string]completion.State{"master-0": completion.Failed, "worker-0": completion.Failed}
	if d := cmp.Diff(want, taskStates(evs)); d != "" {
		t.Errorf("task states (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"master-0/attempt-1", "worker-0/attempt-1"}, starts(t, dir)); d != "" {
		t.Errorf("starts (-want +got):\n%s", d)
	}
}

// TestPreV1ExitCode: under kubeflow.org/v1beta2, restartPolicy ExitCode
// does not retry 139 (SIGSEGV is permanent in tf-operator v0.5.3
// pkg/util/train/train_util.go); under kubeflow.org/v1 it does (every code
// >= 128, v1.5+), until backoffLimit 2 stops it.
func TestPreV1ExitCode(t *testing.T) {
	for api, wantStarts := range map[string][]string{
		"kubeflow.org/v1beta2": {"worker-0/attempt-1"},
		"kubeflow.org/v1":      {"worker-0/attempt-1", "worker-0/attempt-1-restart-1"},
	} {
		t.Run(api, func(t *testing.T) {
			job := kube(jobs.FormatTFJob, "exitcode", intp(2),
				kubeRole("worker", "worker", 1, "ExitCode", "sh", "-c", "exit 139"))
			job.Source.Version = api
			res, dir, _ := runJob(t, job, Options{})
			if res.Phase != completion.PhaseFailed || res.ExitCode != 139 {
				t.Errorf("result = %+v, want failed with 139", res)
			}
			if d := cmp.Diff(wantStarts, starts(t, dir)); d != "" {
				t.Errorf("starts (-want +got):\n%s", d)
			}
		})
	}
}
