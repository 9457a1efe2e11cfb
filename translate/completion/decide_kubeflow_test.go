package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// chief×1, ps×1, worker×2, evaluator×1, restartPolicy Never (TFJob default).
func tfFull() *jobs.Job {
	return tfJob(kfRole("chief", 1, ""), kfRole("ps", 1, ""), kfRole("worker", 2, ""), kfRole("evaluator", 1, ""))
}

// ps×1, worker×2: no chief.
func tfNoChief() *jobs.Job { return tfJob(kfRole("ps", 1, ""), kfRole("worker", 2, "")) }

func TestDecideTFJob(t *testing.T) {
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		want  Verdict
	}{
		// spec/kubeflow.md §3 "Success, with a Chief": chief Succeeded ⇒
		// job Succeeded whatever the others do; cleanPodPolicy unset ⇒
		// jobshift's Running: stop what still runs (README).
		"chief succeeds: job succeeds, the rest stopped": {
			job:   tfFull(),
			tasks: []Task{tk("chief", 0, Succeeded, 0, 1), run("ps", 0), run("worker", 0), run("worker", 1), run("evaluator", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("chief", 0),
				Reason: "TFJob mnist successfully completed (every Chief/Master replica succeeded)",
				Stop:   []TaskRef{ref("ps", 0), ref("worker", 0), ref("worker", 1), ref("evaluator", 0)}},
		},
		// §3: with a Chief, workers do not decide success.
		"chief present: workers succeeding do not end the job": {
			job:   tfFull(),
			tasks: []Task{run("chief", 0), run("ps", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2), run("evaluator", 0)},
			want:  Verdict{Phase: PhaseRunning, Reason: "2 of 5 tasks ended"},
		},
		// §1.2: Master means the same as Chief.
		"master is a chief": {
			job:   tfJob(kfRole("master", 1, ""), kfRole("worker", 1, "")),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 0),
				Reason: "TFJob mnist successfully completed (every Chief/Master replica succeeded)",
				Stop:   []TaskRef{ref("worker", 0)}},
		},
		// §3 "no Chief", successPolicy "": worker-0 Succeeded with exit 0.
		"no chief: worker 0 succeeds the job": {
			job:   tfNoChief(),
			tasks: []Task{run("ps", 0), tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0),
				Reason: "TFJob mnist successfully completed (Worker 0 succeeded)",
				Stop:   []TaskRef{ref("ps", 0), ref("worker", 1)}},
		},
		// worker-1 alone does not.
		"no chief: worker 1 alone does not": {
			job:   tfNoChief(),
			tasks: []Task{run("ps", 0), run("worker", 0), tk("worker", 1, Succeeded, 0, 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		// §1.6/§3 AllWorkers: worker-0 is not enough ...
		"AllWorkers: worker 0 alone does not": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.SuccessPolicy = "AllWorkers" }),
			tasks: []Task{run("ps", 0), tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		// ... every worker is.
		"AllWorkers: every worker succeeds": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.SuccessPolicy = "AllWorkers" }),
			tasks: []Task{run("ps", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "TFJob mnist successfully completed (every Worker replica succeeded)",
				Stop:   []TaskRef{ref("ps", 0)}},
		},
		// §3 "Failure": restartPolicy Never and a non-zero exit fails the
		// job; the exit code is the task's.
		"worker failure fails the job": {
			job:   tfFull(),
			tasks: []Task{run("chief", 0), run("ps", 0), run("worker", 0), tk("worker", 1, Failed, 1, 1), run("evaluator", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1),
				Reason: "TFJob mnist has failed because 1 Worker replica(s) failed (task worker-1 exited with 1)",
				Stop:   []TaskRef{ref("chief", 0), ref("ps", 0), ref("worker", 0), ref("evaluator", 0)}},
		},
		// §3: failures of PS and Evaluator fail the job too.
		"PS failure fails the job": {
			job:   tfNoChief(),
			tasks: []Task{tk("ps", 0, Failed, 139, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 139, Trigger: refp("ps", 0),
				Reason: "TFJob mnist has failed because 1 PS replica(s) failed (task ps-0 exited with 139)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"evaluator failure fails the job": {
			job:   tfFull(),
			tasks: []Task{run("chief", 0), run("ps", 0), run("worker", 0), run("worker", 1), tk("evaluator", 0, Failed, 2, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 2, Trigger: refp("evaluator", 0),
				Reason: "TFJob mnist has failed because 1 Evaluator replica(s) failed (task evaluator-0 exited with 2)",
				Stop:   []TaskRef{ref("chief", 0), ref("ps", 0), ref("worker", 0), ref("worker", 1)}},
		},
		// §3: only Chief/Master (or Worker) branches set Succeeded; an
		// Evaluator's success decides nothing.
		"evaluator success decides nothing": {
			job:   tfFull(),
			tasks: []Task{run("chief", 0), run("ps", 0), run("worker", 0), run("worker", 1), tk("evaluator", 0, Succeeded, 0, 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 5 tasks ended"},
		},
		// The count in the message is that type's failures so far.
		"second worker failure counted in the message": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = false }),
			tasks: []Task{run("ps", 0), tk("worker", 0, Failed, 1, 0), tk("worker", 1, Failed, 1, 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "TFJob mnist has failed because 1 Worker replica(s) failed (task worker-0 exited with 1)",
				Stop:   []TaskRef{ref("ps", 0)}},
		},
		// §1.6: enableDynamicWorker ⇒ worker failures are ignored ...
		"dynamic worker: worker failure ignored": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }),
			tasks: []Task{run("ps", 0), run("worker", 0), tk("worker", 1, Failed, 1, 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		// ... and worker-0's success still succeeds the job.
		"dynamic worker: worker 0 success after a worker failure": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }),
			tasks: []Task{run("ps", 0), tk("worker", 0, Succeeded, 0, 2), tk("worker", 1, Failed, 1, 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0),
				Reason: "TFJob mnist successfully completed (Worker 0 succeeded)",
				Stop:   []TaskRef{ref("ps", 0)}},
		},
		// ... but not PS failures.
		"dynamic worker: PS failure still fails": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }),
			tasks: []Task{tk("ps", 0, Failed, 1, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("ps", 0),
				Reason: "TFJob mnist has failed because 1 PS replica(s) failed (task ps-0 exited with 1)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		// §1.5 cleanPodPolicy None: nothing deleted; the driver is told
		// through Keep.
		"cleanPodPolicy None keeps the rest": {
			job:   with(tfFull(), func(j *jobs.Job) { j.Retry.CleanPodPolicy = "None" }),
			tasks: []Task{tk("chief", 0, Succeeded, 0, 1), run("ps", 0), run("worker", 0), run("worker", 1), run("evaluator", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("chief", 0),
				Reason: "TFJob mnist successfully completed (every Chief/Master replica succeeded)",
				Keep:   []TaskRef{ref("ps", 0), ref("worker", 0), ref("worker", 1), ref("evaluator", 0)}},
		},
		// Monotone: a straggler kept by None that fails later does not
		// turn the success into a failure.
		"cleanPodPolicy None: a later failure does not change the verdict": {
			job:   with(tfFull(), func(j *jobs.Job) { j.Retry.CleanPodPolicy = "None" }),
			tasks: []Task{tk("chief", 0, Succeeded, 0, 1), run("ps", 0), tk("worker", 0, Failed, 1, 2), run("worker", 1), run("evaluator", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("chief", 0),
				Reason: "TFJob mnist successfully completed (every Chief/Master replica succeeded)",
				Keep:   []TaskRef{ref("ps", 0), ref("worker", 1), ref("evaluator", 0)}},
		},
		"cleanPodPolicy All stops like Running": {
			job:   with(tfNoChief(), func(j *jobs.Job) { j.Retry.CleanPodPolicy = "All" }),
			tasks: []Task{run("ps", 0), tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0),
				Reason: "TFJob mnist successfully completed (Worker 0 succeeded)",
				Stop:   []TaskRef{ref("ps", 0), ref("worker", 1)}},
		},
		// §1.4/§1.5: an OnFailure task reported failed means TaskRestart
		// refused (backoff limit reached): the job fails and every pod is
		// deleted, cleanPodPolicy None or not.
		"backoff limit reached stops everything": {
			job: with(tfJob(kfRole("ps", 1, ""), kfRole("worker", 2, RestartOnFailure)), func(j *jobs.Job) {
				j.Retry.BackoffLimit = ip(3)
				j.Retry.CleanPodPolicy = "None"
			}),
			tasks: []Task{run("ps", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "BackoffLimitExceeded: TFJob mnist has failed because it has reached the specified backoff limit 3 (task worker-0 ended with exit code 1 and was not restarted)",
				Stop:   []TaskRef{ref("ps", 0), ref("worker", 1)}},
		},
		// §1.4 Always restarts even after exit 0, so a PS reported
		// Succeeded under Always means the backoff limit refused it.
		"Always: a success past the backoff limit fails": {
			job:   with(tfJob(kfRole("ps", 1, RestartAlways), kfRole("worker", 1, "")), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(1) }),
			tasks: []Task{tk("ps", 0, Succeeded, 0, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("ps", 0),
				Reason: "BackoffLimitExceeded: TFJob mnist has failed because it has reached the specified backoff limit 1 (task ps-0 ended with exit code 0 and was not restarted)",
				Stop:   []TaskRef{ref("worker", 0)}},
		},
		// §1.4 ExitCode: 1–127 are permanent ⇒ plain failure (not backoff).
		"ExitCode policy, permanent code": {
			job:   with(tfJob(kfRole("worker", 2, RestartExitCode)), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(3) }),
			tasks: []Task{tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "TFJob mnist has failed because 1 Worker replica(s) failed (task worker-0 exited with 1)",
				Stop:   []TaskRef{ref("worker", 1)}},
		},
		// ExitCode with a retryable code and backoffLimit set: only
		// reported terminal when the limit refused the restart.
		"ExitCode policy, retryable code past the backoff limit": {
			job:   with(tfJob(kfRole("worker", 2, RestartExitCode)), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(2) }),
			tasks: []Task{tk("worker", 0, Failed, 137, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 137, Trigger: refp("worker", 0),
				Reason: "BackoffLimitExceeded: TFJob mnist has failed because it has reached the specified backoff limit 2 (task worker-0 ended with exit code 137 and was not restarted)",
				Stop:   []TaskRef{ref("worker", 1)}},
		},
		// §3 edge case: only PS can never succeed. Kubeflow would leave it
		// Running; jobshift fails it once every task ended.
		"PS only: every task ended, no rule": {
			job:   tfJob(kfRole("ps", 2, "")),
			tasks: []Task{tk("ps", 0, Succeeded, 0, 1), tk("ps", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("ps", 1),
				Reason: "every task of TFJob mnist ended but no success rule fired (a TFJob succeeds when its Chief/Master succeeds, else when Worker 0 (or, with successPolicy AllWorkers, every Worker) succeeds); Kubeflow would leave it Running, jobshift fails it"},
		},
		"user stop before any rule": {
			job:   tfNoChief(),
			tasks: []Task{tk("ps", 0, Stopped, 143, 1), tk("worker", 0, Stopped, 143, 2), tk("worker", 1, Stopped, 143, 3)},
			want: Verdict{Phase: PhaseStopped, ExitCode: 143,
				Reason: "stopped: every task ended, 3 of them stopped from outside the job (jobshift stop, the engine or a signal), before any completion rule fired"},
		},
		// Readers that leave ReplicaType empty: the role name is used.
		"replica type from the role name": {
			job:   tfJob(&jobs.Role{Name: "Chief", Instances: 1}, &jobs.Role{Name: "Worker", Instances: 1}),
			tasks: []Task{tk("Chief", 0, Succeeded, 0, 1), run("Worker", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("Chief", 0),
				Reason: "TFJob mnist successfully completed (every Chief/Master replica succeeded)",
				Stop:   []TaskRef{ref("Worker", 0)}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Decide(c.job, c.tasks)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecidePyTorchJob(t *testing.T) {
	// master×1 + worker×2, restartPolicy unset (PyTorchJob default OnFailure).
	pt := func() *jobs.Job { return ptJob(kfRole("master", 1, ""), kfRole("worker", 2, "")) }
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		want  Verdict
	}{
		// §4.4: with a Master, its success is the job's; workers ignored.
		"master succeeds": {
			job:   pt(),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 0),
				Reason: "PyTorchJob pt is successfully completed (the Master succeeded)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"workers succeeding do not end a job with a master": {
			job:   pt(),
			tasks: []Task{run("master", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:  Verdict{Phase: PhaseRunning, Reason: "2 of 3 tasks ended"},
		},
		// §4.4 failure, restartPolicy Never ⇒ Failed.
		"worker failure, Never": {
			job:   ptJob(kfRole("master", 1, RestartNever), kfRole("worker", 2, RestartNever)),
			tasks: []Task{run("master", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "PyTorchJob pt is failed because 1 Worker replica(s) failed (task worker-0 exited with 1)",
				Stop:   []TaskRef{ref("master", 0), ref("worker", 1)}},
		},
		"master failure, Never": {
			job:   ptJob(kfRole("master", 1, RestartNever), kfRole("worker", 2, RestartNever)),
			tasks: []Task{tk("master", 0, Failed, 3, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 3, Trigger: refp("master", 0),
				Reason: "PyTorchJob pt is failed because 1 Master replica(s) failed (task master-0 exited with 3)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		// Default OnFailure with backoffLimit: terminal = limit reached.
		"worker failure past backoffLimit": {
			job:   with(pt(), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(2) }),
			tasks: []Task{run("master", 0), tk("worker", 1, Failed, 1, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1),
				Reason: "BackoffLimitExceeded: PyTorchJob pt has failed because it has reached the specified backoff limit 2 (task worker-1 ended with exit code 1 and was not restarted)",
				Stop:   []TaskRef{ref("master", 0), ref("worker", 0)}},
		},
		// OnFailure, no backoffLimit, yet reported failed (a driver that
		// does not restart): the replica failed and will not come back, so
		// the job fails (the operator would sit in Restarting).
		"worker failure not restarted, no backoffLimit": {
			job:   pt(),
			tasks: []Task{run("master", 0), tk("worker", 1, Failed, 1, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1),
				Reason: "PyTorchJob pt is failed because 1 Worker replica(s) failed (task worker-1 exited with 1)",
				Stop:   []TaskRef{ref("master", 0), ref("worker", 0)}},
		},
		// §4.4 no Master: every Worker ...
		"no master: every worker": {
			job:   ptJob(kfRole("worker", 2, "")),
			tasks: []Task{tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "PyTorchJob pt is successfully completed (every Worker succeeded)"},
		},
		"no master: one worker is not enough": {
			job:   ptJob(kfRole("worker", 2, "")),
			tasks: []Task{tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 2 tasks ended"},
		},
		// ... or, elastic, any Worker.
		"no master, elastic: any worker": {
			job:   with(ptJob(kfRole("worker", 2, "")), func(j *jobs.Job) { j.Extras.ElasticPolicy = map[string]any{"minReplicas": 1} }),
			tasks: []Task{run("worker", 0), tk("worker", 1, Succeeded, 0, 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "PyTorchJob pt is successfully completed (a Worker succeeded and elasticPolicy is set)",
				Stop:   []TaskRef{ref("worker", 0)}},
		},
		"cleanPodPolicy None keeps workers": {
			job:   with(pt(), func(j *jobs.Job) { j.Retry.CleanPodPolicy = "None" }),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 0),
				Reason: "PyTorchJob pt is successfully completed (the Master succeeded)",
				Keep:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Decide(c.job, c.tasks)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}
