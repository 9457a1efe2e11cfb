package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// kindJob is a job of one of the other training-operator kinds as the
// Kubeflow reader makes it: the pytorch rule family, cleanPodPolicy None
// (SetDefaults_<kind>), the kind's restart policy on every role.
func kindJob(f jobs.Format, restart string, roles ...*jobs.Role) *jobs.Job {
	j := &jobs.Job{Name: "k", Source: jobs.Source{Format: f, Version: "kubeflow.org/v1"},
		Completion: jobs.Completion{Kind: jobs.CompletionPyTorch}, Retry: jobs.Retry{CleanPodPolicy: "None"}, Roles: roles}
	if f == jobs.FormatMXJob {
		j.Completion.Decider = "scheduler"
	}
	for _, r := range roles {
		if r.RestartPolicy == "" {
			r.RestartPolicy = restart
		}
	}
	return j
}

// TestDecideOtherKinds: each case names the UpdateJobStatus it follows.
func TestDecideOtherKinds(t *testing.T) {
	xgb := func() *jobs.Job {
		return kindJob(jobs.FormatXGBoostJob, "Never", kfRole("master", 1, ""), kfRole("worker", 2, ""))
	}
	cases := map[string]struct {
		source string
		job    *jobs.Job
		tasks  []Task
		want   Verdict
	}{
		"xgboost: the Master succeeding succeeds the job, workers kept (cleanPodPolicy None)": {
			source: "pkg/controller.v1/xgboost/xgboostjob_controller.go UpdateJobStatus @v1.9.0 (rtype Master, expected == 0)",
			job:    xgb(),
			tasks:  []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 0), Reason: "XGBoostJob k is successfully completed (the Master succeeded)",
				Keep: []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"xgboost: workers succeeding do not end the job": {
			source: "xgboostjob_controller.go UpdateJobStatus @v1.9.0: only the Master's expected == 0 succeeds",
			job:    xgb(),
			tasks:  []Task{run("master", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:   Verdict{Phase: PhaseRunning, Reason: "2 of 3 tasks ended"},
		},
		"xgboost: a failed worker under Never fails the job": {
			source: "xgboostjob_controller.go UpdateJobStatus @v1.9.0: failed > 0, restartPolicy not ExitCode ⇒ JobFailed",
			job:    xgb(),
			tasks:  []Task{run("master", 0), tk("worker", 1, Failed, 3, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 3, Trigger: refp("worker", 1), Reason: "XGBoostJob k is failed because 1 Worker replica(s) failed (task worker-1 exited with 3)",
				Keep: []TaskRef{ref("master", 0), ref("worker", 0)}},
		},
		"paddle collective: every Worker succeeding succeeds the job": {
			source: "pkg/controller.v1/paddlepaddle/paddlepaddle_controller.go UpdateJobStatus @v1.9.0 (no Master: Worker expected == 0)",
			job:    kindJob(jobs.FormatPaddleJob, "OnFailure", kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:   Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1), Reason: "PaddleJob k is successfully completed (every Worker succeeded)"},
		},
		"paddle collective: one Worker is not enough": {
			source: "paddlepaddle_controller.go UpdateJobStatus @v1.9.0",
			job:    kindJob(jobs.FormatPaddleJob, "OnFailure", kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want:   Verdict{Phase: PhaseRunning, Reason: "1 of 2 tasks ended"},
		},
		"paddle parameter-server: the Masters decide": {
			source: "paddlepaddle_controller.go UpdateJobStatus @v1.9.0 (ContainsMasterSpec: Master expected == 0)",
			job:    kindJob(jobs.FormatPaddleJob, "OnFailure", kfRole("master", 2, ""), kfRole("worker", 2, "")),
			tasks:  []Task{tk("master", 0, Succeeded, 0, 1), tk("master", 1, Succeeded, 0, 2), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("master", 1), Reason: "PaddleJob k is successfully completed (the Master succeeded)",
				Keep: []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"paddle parameter-server: every Worker succeeding does not end the job": {
			source: "paddlepaddle_controller.go UpdateJobStatus @v1.9.0 (ContainsMasterSpec: only the Master's expected == 0 succeeds)",
			job:    kindJob(jobs.FormatPaddleJob, "OnFailure", kfRole("master", 1, ""), kfRole("worker", 2, "")),
			tasks:  []Task{run("master", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:   Verdict{Phase: PhaseRunning, Reason: "2 of 3 tasks ended"},
		},
		"xgboost: a failed Master fails the job": {
			source: "xgboostjob_controller.go UpdateJobStatus @v1.9.0: failed > 0, restartPolicy not ExitCode ⇒ JobFailed",
			job:    xgb(),
			tasks:  []Task{tk("master", 0, Failed, 2, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 2, Trigger: refp("master", 0), Reason: "XGBoostJob k is failed because 1 Master replica(s) failed (task master-0 exited with 2)",
				Keep: []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"jax: every Worker succeeding succeeds the job": {
			source: "pkg/controller.v1/jax/jaxjob_controller.go UpdateJobStatus @v1.9.0 (Worker expected == 0)",
			job:    kindJob(jobs.FormatJAXJob, "Never", kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 1, Succeeded, 0, 1), tk("worker", 0, Succeeded, 0, 2)},
			want:   Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0), Reason: "JAXJob k is successfully completed (every Worker succeeded)"},
		},
		"jax: a Worker failing under Never fails the job": {
			source: "jaxjob_controller.go UpdateJobStatus @v1.9.0: failed > 0, restartPolicy Never ⇒ JobFailed",
			job:    kindJob(jobs.FormatJAXJob, "Never", kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 1, Failed, 1, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1), Reason: "JAXJob k is failed because 1 Worker replica(s) failed (task worker-1 exited with 1)",
				Keep: []TaskRef{ref("worker", 0)}},
		},
		"mxnet: the Scheduler succeeding succeeds the job": {
			source: "pkg/controller.v1/mxnet/mxjob_controller.go UpdateJobStatus @v1.8.1 (rtype Scheduler, expected == 0)",
			job:    kindJob(jobs.FormatMXJob, "Never", kfRole("scheduler", 1, ""), kfRole("server", 1, ""), kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2), tk("scheduler", 0, Succeeded, 0, 3), run("server", 0)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("scheduler", 0), Reason: "MXJob k is successfully completed (the Scheduler succeeded)",
				Keep: []TaskRef{ref("server", 0)}},
		},
		"mxnet: workers alone do not end a job with a Scheduler": {
			source: "mxjob_controller.go UpdateJobStatus @v1.8.1",
			job:    kindJob(jobs.FormatMXJob, "Never", kfRole("scheduler", 1, ""), kfRole("server", 1, ""), kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2), run("scheduler", 0), run("server", 0)},
			want:   Verdict{Phase: PhaseRunning, Reason: "2 of 4 tasks ended"},
		},
		"mxnet: a single worker decides": {
			source: "mxjob_controller.go isSingleWorker @v1.8.1 (1 Worker, no Scheduler, no Server)",
			job:    kindJob(jobs.FormatMXJob, "Never", kfRole("worker", 1, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1)},
			want:   Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0), Reason: "MXJob k is successfully completed (every Worker succeeded)"},
		},
		"mxnet: two workers without a Scheduler never succeed (the operator leaves it Running)": {
			source: "mxjob_controller.go UpdateJobStatus @v1.8.1: neither Scheduler nor singleTraining; jobshift's T8 ends it",
			job:    kindJob(jobs.FormatMXJob, "Never", kfRole("worker", 2, "")),
			tasks:  []Task{tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1),
				Reason: "every task of MXJob k ended but no success rule fired (an MXJob succeeds when its Scheduler succeeds, or its single Worker when it has neither Scheduler nor Server); Kubeflow would leave it Running, jobshift fails it"},
		},
		"mxnet: a failed Server fails the job": {
			source: "mxjob_controller.go UpdateJobStatus @v1.8.1: failed > 0, restartPolicy not ExitCode ⇒ JobFailed",
			job:    kindJob(jobs.FormatMXJob, "Never", kfRole("scheduler", 1, ""), kfRole("server", 1, ""), kfRole("worker", 1, "")),
			tasks:  []Task{run("scheduler", 0), tk("server", 0, Failed, 137, 1), run("worker", 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 137, Trigger: refp("server", 0), Reason: "MXJob k is failed because 1 Server replica(s) failed (task server-0 exited with 137)",
				Keep: []TaskRef{ref("scheduler", 0), ref("worker", 0)}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Decide(c.job, c.tasks)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s\n(-want +got):\n%s", c.source, diff)
			}
		})
	}
}

// TestRestartOtherKinds: restart in place by each kind's default policy and
// the backoff limit (R6, R7), as for TFJob.
func TestRestartOtherKinds(t *testing.T) {
	cases := map[string]struct {
		source string
		job    *jobs.Job
		code   int
		want   bool
	}{
		"paddle default OnFailure restarts a failure": {"paddlepaddle_types.go @v1.9.0 PaddleJobDefaultRestartPolicy OnFailure",
			kindJob(jobs.FormatPaddleJob, "OnFailure", kfRole("worker", 2, "")), 1, true},
		"xgboost default Never does not": {"xgboost_types.go @v1.9.0 XGBoostJobDefaultRestartPolicy Never",
			kindJob(jobs.FormatXGBoostJob, "Never", kfRole("master", 1, ""), kfRole("worker", 1, "")), 1, false},
		"jax ExitCode restarts 137": {"kubeflow.org/v1 IsRetryableExitCode (code ≥ 128), JAXJob has no generation of its own",
			kindJob(jobs.FormatJAXJob, "ExitCode", kfRole("worker", 2, "")), 137, true},
		"xgboost ExitCode restarts 137": {"xgboostjob_controller.go UpdateJobStatus @v1.9.0 (ExitCode ⇒ JobRestarting); IsRetryableExitCode (code ≥ 128)",
			kindJob(jobs.FormatXGBoostJob, "ExitCode", kfRole("master", 1, ""), kfRole("worker", 1, "")), 137, true},
		"xgboost ExitCode does not restart 1": {"xgboostjob_controller.go @v1.9.0; IsRetryableExitCode: 1–127 permanent",
			kindJob(jobs.FormatXGBoostJob, "ExitCode", kfRole("master", 1, ""), kfRole("worker", 1, "")), 1, false},
		"paddle Never does not restart": {"paddlepaddle_controller.go UpdateJobStatus @v1.9.0 (RestartPolicy Never ⇒ JobFailed)",
			kindJob(jobs.FormatPaddleJob, "Never", kfRole("worker", 2, "")), 1, false},
		"jax OnFailure restarts 1": {"jaxjob_controller.go UpdateJobStatus @v1.9.0 (not Never ⇒ JobRestarting; the kubelet restarts the container)",
			kindJob(jobs.FormatJAXJob, "OnFailure", kfRole("worker", 2, "")), 1, true},
		"mxnet ExitCode does not restart 1": {"mxjob_controller.go @v1.8.1 restarting only under ExitCode; 1–127 permanent",
			kindJob(jobs.FormatMXJob, "ExitCode", kfRole("worker", 1, "")), 1, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Restartable(c.job, "worker", c.code); got != c.want {
				t.Errorf("%s: Restartable(worker, %d) = %v, want %v", c.source, c.code, got, c.want)
			}
		})
	}
}

// TestBackoffAndDeadlineOtherKinds: the four kinds reconcile through the
// common job controller (xgboostjob_controller.go, paddlepaddle_controller.go,
// jaxjob_controller.go @v1.9.0 and mxjob_controller.go @v1.8.1 call
// ReconcileJobs), so runPolicy's backoffLimit and activeDeadlineSeconds
// end them as they end a TFJob: pkg/controller.v1/common/job.go
// ReconcileJobs ("has reached the specified backoff limit", "was active
// longer than specified deadline"), the same at both tags.
func TestBackoffAndDeadlineOtherKinds(t *testing.T) {
	kinds := map[string]*jobs.Job{
		"xgboost": kindJob(jobs.FormatXGBoostJob, RestartOnFailure, kfRole("master", 1, ""), kfRole("worker", 2, "")),
		"paddle":  kindJob(jobs.FormatPaddleJob, RestartOnFailure, kfRole("worker", 3, "")),
		"jax":     kindJob(jobs.FormatJAXJob, RestartOnFailure, kfRole("worker", 3, "")),
		"mxnet":   kindJob(jobs.FormatMXJob, RestartExitCode, kfRole("scheduler", 1, ""), kfRole("server", 1, ""), kfRole("worker", 2, "")),
	}
	for name, j := range kinds {
		t.Run(name, func(t *testing.T) {
			j.Retry.BackoffLimit = ip(2)
			exit := 1
			if j.Source.Format == jobs.FormatMXJob {
				exit = 137 // ExitCode: only 128 and above are retryable
			}
			// the job fails once the restarts reach the limit
			// (core.PastBackoffLimit: restart counts ≥ backoffLimit), so
			// the restart that would reach it never happens
			if got := TaskRestartDecision(j, "worker", exit, 0); !got.Retry {
				t.Errorf("backoffLimit 2, no restart so far: %+v, want a restart", got)
			}
			want := RetryDecision{Reason: "backoffLimit 2 reached (1 restarts so far)"}
			if d := cmp.Diff(want, TaskRestartDecision(j, "worker", exit, 1)); d != "" {
				t.Errorf("backoffLimit 2, 1 restart so far (-want +got):\n%s", d)
			}
			j.Retry.ActiveDeadlineSeconds = i64(60)
			// MXJob @v1.8.1 deletes every pod past the deadline, whatever
			// cleanPodPolicy; the v1.9.4 kinds keep them under None
			// (TestBackoffLimitDeadlineCleanPodPolicy)
			var tasks []Task
			var stop []TaskRef
			for _, r := range j.Roles {
				for i := range r.Instances {
					if r.Name == "worker" && i == 0 {
						tasks = append(tasks, tk("worker", 0, Failed, 1, 0))
						continue
					}
					tasks = append(tasks, run(r.Name, i))
					stop = append(stop, ref(r.Name, i))
				}
			}
			got := DeadlineVerdict(j, tasks)
			wantV := Verdict{Phase: PhaseFailed, ExitCode: 124,
				Reason: "DeadlineExceeded: job k was active longer than specified deadline (activeDeadlineSeconds 60)",
				Stop:   stop}
			if j.Source.Format != jobs.FormatMXJob {
				wantV.Stop, wantV.Keep = nil, stop
			}
			if d := cmp.Diff(wantV, got); d != "" {
				t.Errorf("past activeDeadlineSeconds (-want +got):\n%s", d)
			}
		})
	}
}

// TestBackoffLimitDeadlineCleanPodPolicy is
// pkg/controller.v1/common/job_test.go
// TestBackoffLimitExceededRespectsCleanPodPolicy @v1.9.4 (kubeflow/trainer):
// past backoffLimit (and activeDeadlineSeconds, the same branch of
// ReconcileJobs) JobFailed is set before DeletePodsAndServices, so
// cleanPodPolicy None preserves the running pods and All or Running
// deletes them. MXJob (last release v1.8.1) deletes them whatever the
// policy ("cleanPodPolicy None without JobFailed set before delete
// (buggy)").
func TestBackoffLimitDeadlineCleanPodPolicy(t *testing.T) {
	cases := map[string]struct {
		format jobs.Format
		clean  string
		keep   bool
	}{
		"cleanPodPolicy None with JobFailed set before delete (fixed)": {jobs.FormatXGBoostJob, "None", true},
		"paddle None": {jobs.FormatPaddleJob, "None", true},
		"jax None":    {jobs.FormatJAXJob, "None", true},
		"cleanPodPolicy All with JobFailed set before delete":                           {jobs.FormatJAXJob, "All", false},
		"cleanPodPolicy Running with JobFailed set before delete":                       {jobs.FormatPaddleJob, "Running", false},
		"cleanPodPolicy None without JobFailed set before delete (buggy): MXJob v1.8.1": {jobs.FormatMXJob, "None", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			j := kindJob(c.format, RestartOnFailure, kfRole("master", 1, ""), kfRole("worker", 1, ""))
			if c.format == jobs.FormatJAXJob || c.format == jobs.FormatMXJob {
				j = kindJob(c.format, RestartOnFailure, kfRole("worker", 2, ""))
				if c.format == jobs.FormatMXJob {
					j.Roles = append([]*jobs.Role{kfRole("scheduler", 1, RestartOnFailure)}, j.Roles...)
				}
			}
			j.Retry.CleanPodPolicy = c.clean
			j.Retry.BackoffLimit = ip(1)
			j.Retry.ActiveDeadlineSeconds = i64(10)
			// the job's other task still runs when worker 0 fails past the limit
			// (backoffLimit); every task still runs at the deadline
			var others, all []TaskRef
			var tasks, running []Task
			for _, r := range j.Roles {
				for i := range r.Instances {
					running = append(running, run(r.Name, i))
					all = append(all, ref(r.Name, i))
					if r.Name == "worker" && i == 0 {
						tasks = append(tasks, tk("worker", 0, Failed, 1, 1))
						continue
					}
					tasks = append(tasks, run(r.Name, i))
					others = append(others, ref(r.Name, i))
				}
			}
			for what, v := range map[string]Verdict{"backoffLimit": Decide(j, tasks), "activeDeadlineSeconds": DeadlineVerdict(j, running)} {
				if v.Phase != PhaseFailed {
					t.Fatalf("%s: phase %s, want failed", what, v.Phase)
				}
				want := others
				if what == "activeDeadlineSeconds" {
					want = all
				}
				got := v.Stop
				if c.keep {
					got = v.Keep
				}
				if d := cmp.Diff(want, got); d != "" || len(v.Stop)+len(v.Keep) != len(want) {
					t.Errorf("%s: keep=%v, stop %v keep %v", what, c.keep, v.Stop, v.Keep)
				}
			}
		})
	}
}

// TestMXJobStatusCases are kubeflow/mxnet-operator pkg/controller.v1/mxnet/
// status_test.go TestStatus and TestFailed @44ed4dd8 (the operator whose
// controller training-operator took over, same rules in
// mxjob_controller.go UpdateJobStatus @v1.8.1): replica counts by type, the
// condition expected. Only the phase is compared (the tests assert the
// condition type alone).
func TestMXJobStatusCases(t *testing.T) {
	withScheduler := func(workers int) *jobs.Job {
		return kindJob(jobs.FormatMXJob, "Never", kfRole("scheduler", 1, ""), kfRole("worker", workers, ""))
	}
	states := func(rt string, failed, succeeded, active int) []Task {
		var out []Task
		i := 0
		for range failed {
			out = append(out, tk(rt, i, Failed, 1, int64(10+i)))
			i++
		}
		for range succeeded {
			out = append(out, tk(rt, i, Succeeded, 0, int64(10+i)))
			i++
		}
		for range active {
			out = append(out, run(rt, i))
			i++
		}
		return out
	}
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		want  Phase
	}{
		"Worker is failed":                               {kindJob(jobs.FormatMXJob, "Never", kfRole("worker", 1, "")), states("worker", 1, 0, 0), PhaseFailed},
		"Worker is succeeded":                            {withScheduler(1), append(states("scheduler", 0, 1, 0), states("worker", 0, 1, 0)...), PhaseSucceeded},
		" Worker is running":                             {withScheduler(1), append(states("scheduler", 0, 0, 1), states("worker", 0, 0, 1)...), PhaseRunning},
		" 2 workers are succeeded, 2 workers are active": {withScheduler(4), append(states("scheduler", 0, 0, 1), states("worker", 0, 2, 2)...), PhaseRunning},
		" 2 workers are running, 2 workers are failed":   {withScheduler(4), append(states("scheduler", 0, 0, 1), states("worker", 2, 0, 2)...), PhaseFailed},
		" 2 workers are succeeded, 2 workers are failed": {withScheduler(4), append(states("scheduler", 0, 0, 1), states("worker", 2, 2, 0)...), PhaseFailed},
		"TestFailed: 1 of 3 Workers failed":              {kindJob(jobs.FormatMXJob, "Never", kfRole("worker", 3, "")), states("worker", 1, 0, 2), PhaseFailed},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Decide(c.job, c.tasks); got.Phase != c.want {
				t.Errorf("mxnet-operator status_test.go %q: phase %s (%s), want %s", name, got.Phase, got.Reason, c.want)
			}
		})
	}
	// pod_test.go TestExitCode: under ExitCode a Worker that exited 130 is
	// deleted so that it is created again.
	if j := kindJob(jobs.FormatMXJob, RestartExitCode, kfRole("worker", 1, "")); !Restartable(j, "worker", 130) {
		t.Errorf("mxnet-operator pod_test.go TestExitCode: exit 130 under ExitCode not restarted")
	}
}
