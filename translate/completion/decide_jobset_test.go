package completion

import (
	"encoding/json"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

func trainJob(targets []string, any bool, roles ...*jobs.Role) *jobs.Job {
	return &jobs.Job{Name: "tj", Source: jobs.Source{Format: jobs.FormatTrainJob},
		Completion: jobs.Completion{Kind: jobs.CompletionJobSet, SuccessRoles: targets, SuccessAny: any}, Roles: roles}
}

func jsRole(name string, n int, backoff int) *jobs.Role {
	return &jobs.Role{Name: name, Instances: n, RestartPolicy: "OnFailure", BackoffLimit: &backoff}
}

// JobSet success and failure (sigs.k8s.io/jobset
// pkg/controllers/jobset_controller.go, vendored by kubeflow/trainer
// v2.3.0; the MPI runtimes' successPolicy names the launcher,
// manifests/base/runtimes/deepspeed_distributed.yaml @v2.3.0).
func TestDecideJobSet(t *testing.T) {
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		phase Phase
		stop  int
	}{
		"All (default): every replicated job complete": {
			job:   trainJob(nil, false, jsRole("node", 2, 6)),
			tasks: []Task{tk("node", 0, Succeeded, 0, 1), tk("node", 1, Succeeded, 0, 2)},
			phase: PhaseSucceeded,
		},
		"All: one node still running": {
			job:   trainJob(nil, false, jsRole("node", 2, 6)),
			tasks: []Task{tk("node", 0, Succeeded, 0, 1), run("node", 1)},
			phase: PhaseRunning,
		},
		"launcher target: launcher done, nodes stopped": {
			job:   trainJob([]string{"launcher"}, false, jsRole("node", 2, 6), jsRole("launcher", 1, 6)),
			tasks: []Task{run("node", 0), run("node", 1), tk("launcher", 0, Succeeded, 0, 1)},
			phase: PhaseSucceeded, stop: 2,
		},
		"first failed replicated job fails the JobSet": {
			job:   trainJob(nil, false, jsRole("node", 2, 6)),
			tasks: []Task{tk("node", 1, Failed, 3, 1), run("node", 0)},
			phase: PhaseFailed, stop: 1,
		},
		"Any: one target job complete": {
			job:   trainJob([]string{"a", "b"}, true, jsRole("a", 1, 6), jsRole("b", 1, 6)),
			tasks: []Task{tk("a", 0, Succeeded, 0, 1), run("b", 0)},
			phase: PhaseSucceeded, stop: 1,
		},
	}
	for name, c := range cases {
		v := Decide(c.job, c.tasks)
		if v.Phase != c.phase || len(v.Stop) != c.stop {
			t.Errorf("%s: got %s (stop %v): %s", name, v.Phase, v.Stop, v.Reason)
		}
	}
}

// batch/v1 Job backoffLimit (default 6) per replicated job; JobSet
// failurePolicy.maxRestarts recreates the JobSet (jobset_controller.go
// executeRestartPolicy, as vendored by kubeflow/trainer v2.3.0).
func TestJobSetRetries(t *testing.T) {
	job := trainJob(nil, false, jsRole("node", 2, 2))
	for _, c := range []struct {
		code, so int
		want     bool
	}{{1, 0, true}, {1, 1, true}, {1, 2, false}, {0, 0, false}} {
		if d := TaskRestartDecision(job, "node", c.code, c.so); d.Retry != c.want {
			t.Errorf("exit %d after %d: %+v", c.code, c.so, d)
		}
	}
	if n := RestartsSoFar(job, TaskRef{Role: "node", Index: 0}, []Task{{TaskRef: TaskRef{Role: "node", Index: 1}, Restarts: 2}}); n != 2 {
		t.Errorf("a Job's backoffLimit counts every pod of the role: %d", n)
	}
	job.Retry.JobRetryCount = 1
	fail := Verdict{Phase: PhaseFailed, ExitCode: 1}
	if d := JobRetry(job, fail, 0); !d.Retry {
		t.Errorf("maxRestarts 1, none so far: %+v", d)
	}
	if d := JobRetry(job, fail, 1); d.Retry {
		t.Errorf("maxRestarts 1 reached: %+v", d)
	}
	// a TrainJob past its activeDeadlineSeconds fails for good: the
	// JobSet's own restarts do not apply (trainjob_types.go
	// ActiveDeadlineSeconds @v2.3.0: the TrainJob is terminated)
	if d := JobRetry(job, Verdict{Phase: PhaseFailed, ExitCode: 1, Reason: "DeadlineExceeded: 600 s"}, 0); d.Retry {
		t.Errorf("deadline passed, maxRestarts 1 left: %+v", d)
	}
}

// TestPolicyKeepsOrderAndBackoff: the step order and a replicated Job's
// backoffLimit survive the policy (PolicyOf, its JSON in Nomad's meta,
// Job), which the Slurm script's order data and retry rules and Nomad's
// controller are built from: an initializer still running holds the
// trainer back, and backoffLimit 2 ends the retries after 2.
func TestPolicyKeepsOrderAndBackoff(t *testing.T) {
	node := jsRole("node", 2, 2)
	node.DependsOn = []jobs.Dependency{{Role: "dataset-initializer", Status: jobs.DependsComplete, Pos: jobs.Pos{File: "j.yaml", Line: 3}}}
	job := trainJob(nil, false, jsRole("dataset-initializer", 1, 6), node)
	b, err := json.Marshal(PolicyOf(job))
	if err != nil {
		t.Fatal(err)
	}
	var pol Policy
	if err := json.Unmarshal(b, &pol); err != nil {
		t.Fatal(err)
	}
	pj := pol.Job()
	tasks := []Task{run("dataset-initializer", 0)}
	if d, why := MayStart(pj, pj.Roles[1], tasks); d != StartWait {
		t.Errorf("node while the initializer runs: %v (%s), want to wait", d, why)
	}
	if d := TaskRestartDecision(pj, "node", 1, 2); d.Retry {
		t.Errorf("backoffLimit 2 after 2 retries: %+v", d)
	}
	if d := TaskRestartDecision(pj, "node", 1, 1); !d.Retry {
		t.Errorf("backoffLimit 2 after 1 retry: %+v", d)
	}
}
