package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func withAPI(j *jobs.Job, api string) *jobs.Job { j.Source.Version = api; return j }

// TestRestartByGeneration: which exit codes restartPolicy ExitCode retries,
// and the v1alpha1 chief's exit ending the job whatever its pod policy.
// Expected values are written from the upstream file named in each case.
func TestRestartByGeneration(t *testing.T) {
	exitCode := func(api string) *jobs.Job { return withAPI(tfJob(kfRole("worker", 2, RestartExitCode)), api) }
	cases := map[string]struct {
		source string
		job    *jobs.Job
		role   string
		code   int
		want   bool
	}{
		"v1 ExitCode 139 retried": {source: "training-operator v1.5.0+ pkg/util/train/train_util.go (kubeflow/common v0.4.3: every code >= 128)",
			job: exitCode("kubeflow.org/v1"), role: "worker", code: 139, want: true},
		"v1 ExitCode 128 retried": {source: "training-operator v1.9.0 pkg/util/train/train_util.go IsRetryableExitCode",
			job: exitCode("kubeflow.org/v1"), role: "worker", code: 128, want: true},
		"v1 ExitCode 127 permanent": {source: "training-operator v1.9.0 pkg/util/train/train_util.go IsRetryableExitCode",
			job: exitCode("kubeflow.org/v1"), role: "worker", code: 127, want: false},
		"v1beta2 ExitCode 139 permanent": {source: "tf-operator v0.5.3 pkg/util/train/train_util.go (139 SIGSEGV listed permanent)",
			job: exitCode("kubeflow.org/v1beta2"), role: "worker", code: 139, want: false},
		"v1alpha2 ExitCode 128 permanent": {source: "tf-operator v0.3.0 pkg/util/train/train_util.go",
			job: exitCode("kubeflow.org/v1alpha2"), role: "worker", code: 128, want: false},
		"v1beta1 ExitCode 200 permanent": {source: "tf-operator v0.4.0 pkg/util/train/train_util.go (other codes: permanent)",
			job: exitCode("kubeflow.org/v1beta1"), role: "worker", code: 200, want: false},
		"v1beta2 ExitCode 137 retried": {source: "tf-operator v0.5.3 pkg/util/train/train_util.go (SIGKILL)",
			job: exitCode("kubeflow.org/v1beta2"), role: "worker", code: 137, want: true},
		"v1alpha2 ExitCode 138 retried": {source: "tf-operator v0.3.0 pkg/util/train/train_util.go (SIGUSR1, user-defined retry)",
			job: exitCode("kubeflow.org/v1alpha2"), role: "worker", code: 138, want: true},
		"pytorch v1beta2 ExitCode 143 retried": {source: "pytorch-operator v1.0.0-rc.1 vendors tf-operator pkg/util/train (SIGTERM)",
			job: withAPI(ptJob(kfRole("worker", 2, RestartExitCode)), "kubeflow.org/v1beta2"), role: "worker", code: 143, want: true},
		"pytorch v1beta2 ExitCode 130+2 permanent": {source: "pytorch-operator v1.0.0-rc.1 vendored train_util.go",
			job: withAPI(ptJob(kfRole("worker", 2, RestartExitCode)), "kubeflow.org/v1beta2"), role: "worker", code: 132, want: false},
		"tf v1alpha1 master OnFailure exit 1 not restarted": {source: "tf-operator v0.1.0 pkg/trainer/replicas.go isRetryableTerminationState, training.go GetStatus",
			job: withAPI(tfJob(kfRole("master", 1, RestartOnFailure), kfRole("worker", 1, RestartOnFailure)), "kubeflow.org/v1alpha1"), role: "master", code: 1, want: false},
		"tf v1alpha1 master Always exit 0 not restarted": {source: "tf-operator v0.1.0 pkg/trainer/replicas.go replicaStatusFromPodList (LastTerminationState exit 0: Succeeded)",
			job: withAPI(tfJob(kfRole("master", 1, RestartAlways), kfRole("worker", 1, RestartAlways)), "kubeflow.org/v1alpha1"), role: "master", code: 0, want: false},
		"tf v1alpha1 master OnFailure exit 137 restarted": {source: "tf-operator v0.1.0 pkg/trainer/training.go isRetryableTerminationState (>127: retryable, kubelet restarts)",
			job: withAPI(tfJob(kfRole("master", 1, RestartOnFailure), kfRole("worker", 1, RestartOnFailure)), "kubeflow.org/v1alpha1"), role: "master", code: 137, want: true},
		"tf v1alpha1 worker OnFailure exit 1 restarted": {source: "tf-operator v0.1.0: only the chief's state is read; the pod policy restarts workers",
			job: withAPI(tfJob(kfRole("master", 1, RestartOnFailure), kfRole("worker", 1, RestartOnFailure)), "kubeflow.org/v1alpha1"), role: "worker", code: 1, want: true},
		"tf v1 master OnFailure exit 1 restarted": {source: "training-operator v1.9.0 pkg/core/pod.go SetRestartPolicy (OnFailure)",
			job: withAPI(tfJob(kfRole("master", 1, RestartOnFailure), kfRole("worker", 1, RestartOnFailure)), "kubeflow.org/v1"), role: "master", code: 1, want: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := TaskRestartDecision(c.job, c.role, c.code, 0); got.Retry != c.want {
				t.Errorf("restart = %v (%s), want %v from %s", got.Retry, got.Reason, c.want, c.source)
			}
		})
	}
}

// TestDecideByGeneration: the v1alpha1 rule, the job's state is its
// chief's (MASTER 0) alone.
func TestDecideByGeneration(t *testing.T) {
	v1a1 := func(policy string) *jobs.Job {
		return withAPI(tfJob(kfRole("master", 1, policy), kfRole("ps", 1, policy), kfRole("worker", 2, policy)), "kubeflow.org/v1alpha1")
	}
	cases := map[string]struct {
		source string
		job    *jobs.Job
		tasks  []Task
		want   Verdict
	}{
		"tf v1alpha1: master exit 1 fails the job under OnFailure": {
			source: "tf-operator v0.1.0 pkg/trainer/training.go GetStatus (chiefState Failed), replicas.go isRetryableTerminationState (1-127 permanent)",
			job:    v1a1(RestartOnFailure),
			tasks:  []Task{tk("master", 0, Failed, 1, 1), run("ps", 0), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("master", 0), Reason: "TFJob mnist failed: its chief (MASTER 0) exited with 1",
				Stop: []TaskRef{ref("ps", 0), ref("worker", 0), ref("worker", 1)}},
		},
		"tf v1alpha1: a worker failing does not fail the job": {
			source: "tf-operator v0.1.0 pkg/trainer/training.go GetStatus (only the chief's state)",
			job:    v1a1(RestartNever),
			tasks:  []Task{run("master", 0), run("ps", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want:   Verdict{Phase: PhaseRunning, Reason: "1 of 4 tasks ended"},
		},
		"tf v1alpha1: master exit 0 succeeds the job": {
			source: "tf-operator v0.1.0 pkg/trainer/training.go GetStatus (chiefState Succeeded)",
			job:    v1a1(RestartNever),
			tasks:  []Task{tk("master", 0, Succeeded, 0, 1), run("ps", 0), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 0), Reason: "TFJob mnist succeeded: its chief (MASTER 0) exited with 0",
				Stop: []TaskRef{ref("ps", 0), ref("worker", 0), ref("worker", 1)}},
		},
		"tf v1alpha1: master killed (137) under Never decides nothing": {
			source: "tf-operator v0.1.0 pkg/trainer/replicas.go replicaStatusFromPodList (retryable: reported Running)",
			job:    v1a1(RestartNever),
			tasks:  []Task{tk("master", 0, Failed, 137, 1), run("ps", 0), run("worker", 0), run("worker", 1)},
			want:   Verdict{Phase: PhaseRunning, Reason: "1 of 4 tasks ended"},
		},
		"tf v1: a worker failing fails the job": {
			source: "training-operator v1.9.0 pkg/controller.v1/tensorflow/tfjob_controller.go UpdateJobStatus",
			job:    withAPI(tfJob(kfRole("master", 1, ""), kfRole("worker", 1, "")), "kubeflow.org/v1"),
			tasks:  []Task{run("master", 0), tk("worker", 0, Failed, 1, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0), Reason: "TFJob mnist has failed because 1 Worker replica(s) failed (task worker-0 exited with 1)",
				Stop: []TaskRef{ref("master", 0)}},
		},
		"pytorch v1alpha1: master failure fails the job, workers ignored": {
			source: "pytorch-operator 8d71ff3b pkg/trainer/training.go GetStatus (masterState), replicas.go replicaStatusFromPodList",
			job:    withAPI(ptJob(kfRole("master", 1, RestartNever), kfRole("worker", 2, RestartNever)), "kubeflow.org/v1alpha1"),
			tasks:  []Task{tk("worker", 0, Failed, 1, 1), tk("master", 0, Failed, 2, 2), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 2, Trigger: refp("master", 0), Reason: "PyTorchJob pt failed: its chief (MASTER 0) exited with 2",
				Stop: []TaskRef{ref("worker", 1)}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(c.want, Decide(c.job, c.tasks)); d != "" {
				t.Errorf("from %s (-want +got):\n%s", c.source, d)
			}
		})
	}
}

// TestDecidingRolesByGeneration: a v1alpha1 job waits on its master only.
func TestDecidingRolesByGeneration(t *testing.T) {
	j := withAPI(tfJob(kfRole("master", 1, ""), kfRole("ps", 1, ""), kfRole("worker", 2, "")), "kubeflow.org/v1alpha1")
	if d := cmp.Diff([]string{"master"}, DecidingRoles(j)); d != "" {
		t.Errorf("v1alpha1 (-want +got):\n%s", d)
	}
	j.Source.Version = "kubeflow.org/v1beta2"
	if d := cmp.Diff([]string{"master", "ps", "worker"}, DecidingRoles(j)); d != "" {
		t.Errorf("v1beta2 (-want +got):\n%s", d)
	}
}
