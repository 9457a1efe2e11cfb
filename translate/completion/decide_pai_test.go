package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// The seed-004 shape: ps×2, worker×2, with the k8s v2 defaults the readers
// apply (spec/pai.md §2.1: minFailed falsy → 1, minSucceeded falsy →
// instances).
func psWorkerV2() *jobs.Job {
	return paiV2(paiRole("ps", 2, ip(1), ip(2)), paiRole("worker", 2, ip(1), ip(2)))
}

func TestDecidePAI(t *testing.T) {
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		want  Verdict
	}{
		// §4.1 rule 1 + k8s default minFailed 1: the first failed task of
		// any role fails the attempt; its exit code is the job's (raw 1,
		// which the k8s runtime would report as 255, §3.1.5); every task
		// still running is stopped (§4.1 "On completion").
		"v2 defaults: first worker failure fails the job": {
			job:   psWorkerV2(),
			tasks: []Task{run("ps", 0), run("ps", 1), run("worker", 0), tk("worker", 1, Failed, 1, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 1),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][1]: exit code 1 (OpenPAI would report 255)",
				Stop:   []TaskRef{ref("ps", 0), ref("ps", 1), ref("worker", 0)}},
		},
		// §4.1 rule 2, "practical effect": all instances of one role
		// succeeded ⇒ Succeeded; the never-ending PS are stopped (issue #2579).
		"v2 defaults: all workers succeed, PS stopped": {
			job:   psWorkerV2(),
			tasks: []Task{run("ps", 0), run("ps", 1), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "SucceededTaskCount 2 has reached MinSucceededTaskCount 2 in TaskRole [worker]: Triggered by Task [worker][1]",
				Stop:   []TaskRef{ref("ps", 0), ref("ps", 1)}},
		},
		// minSucceeded 2: one success is below the threshold.
		"v2 defaults: one of two workers succeeded, still running": {
			job:   psWorkerV2(),
			tasks: []Task{run("ps", 0), run("ps", 1), tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 4 tasks ended"},
		},
		// Tasks the driver has not reported yet count as Pending, and are
		// listed in Stop (never start them).
		"missing tasks are pending and stopped": {
			job:   psWorkerV2(),
			tasks: []Task{tk("worker", 0, Failed, 2, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 2, Trigger: refp("worker", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][0]: exit code 2 (OpenPAI would report 255)",
				Stop:   []TaskRef{ref("ps", 0), ref("ps", 1), ref("worker", 1)}},
		},
		// Tasks the job does not have are ignored, not a panic.
		"unknown role and index out of range are ignored": {
			job:   psWorkerV2(),
			tasks: []Task{tk("ghost", 0, Failed, 1, 1), tk("worker", 7, Failed, 1, 2), run("worker", 0)},
			want:  Verdict{Phase: PhaseRunning, Reason: "0 of 4 tasks ended"},
		},
		// §4.1 rule 4: all tasks completed, no rule fired ⇒ Succeeded even
		// though a task failed (v1 JSON nulls disable both rules, §1 table).
		"v1 nulls: all completed with a failure is succeeded": {
			job:   paiV1(paiRole("worker", 2, nil, nil)),
			tasks: []Task{tk("worker", 0, Failed, 3, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "All Tasks are completed and no user specified conditions in FrameworkAttemptCompletionPolicy have ever been triggered: TotalTaskCount: 2, FailedTaskCount: 1: Triggered by Task [worker][1]"},
		},
		// §4.1 rule 5: -1 disables (k8s).
		"-1 disables both rules": {
			job:   paiV2(paiRole("worker", 2, ip(-1), ip(-1))),
			tasks: []Task{tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 2 tasks ended"},
		},
		// minFailed 2: one failure is below the threshold ...
		"minFailed 2: one failure keeps running": {
			job:   paiV2(paiRole("worker", 3, ip(2), ip(3))),
			tasks: []Task{tk("worker", 0, Failed, 1, 1), run("worker", 1), run("worker", 2)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		// ... the second reaches it; the trigger is the second failure.
		"minFailed 2: second failure fails": {
			job:   paiV2(paiRole("worker", 3, ip(2), ip(3))),
			tasks: []Task{tk("worker", 0, Failed, 1, 1), run("worker", 1), tk("worker", 2, Failed, 7, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 7, Trigger: refp("worker", 2),
				Reason: "FailedTaskCount 2 has reached MinFailedTaskCount 2 in TaskRole [worker]: Triggered by Task [worker][2]: exit code 7 (OpenPAI would report 255)",
				Stop:   []TaskRef{ref("worker", 1)}},
		},
		// The counters are per role: a failure in worker does not count
		// toward ps's minFailed (FC checks the ended task's role only).
		"counters are per role": {
			job:   paiV2(paiRole("ps", 1, ip(1), ip(-1)), paiRole("worker", 2, ip(2), ip(2))),
			tasks: []Task{run("ps", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		// 137 has its own entry in the k8s exit spec, so no "would report".
		"signal exit code is kept": {
			job:   psWorkerV2(),
			tasks: []Task{tk("ps", 0, Failed, 137, 1), run("ps", 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 137, Trigger: refp("ps", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [ps]: Triggered by Task [ps][0]: exit code 137",
				Stop:   []TaskRef{ref("ps", 1), ref("worker", 0), ref("worker", 1)}},
		},
		// A failed verdict never exits 0, even if the driver reported a
		// failure with code 0 (e.g. a start failure).
		"failed task with exit 0 gives job exit 1": {
			job:   paiV2(paiRole("worker", 1, ip(1), ip(1))),
			tasks: []Task{tk("worker", 0, Failed, 0, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][0]: exit code 0"},
		},
		// YARN era (v1 JSON): plain non-zero → 255 (§1 "Reported exit code").
		"v1 JSON: exit 1 reported as 255": {
			job:   paiV1(paiRole("worker", 1, ip(1), nil)),
			tasks: []Task{tk("worker", 0, Failed, 1, 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("worker", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][0]: exit code 1 (OpenPAI would report 255)"},
		},
		// The first rule that fires decides (FC evaluates on each task
		// completion): success first, the later failure changes nothing.
		"success first, later failure ignored": {
			job:   paiV2(paiRole("ps", 1, ip(1), ip(-1)), paiRole("worker", 1, ip(1), ip(1))),
			tasks: []Task{tk("ps", 0, Failed, 1, 2), tk("worker", 0, Succeeded, 0, 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 0),
				Reason: "SucceededTaskCount 1 has reached MinSucceededTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][0]"},
		},
		"failure first, later success ignored": {
			job:   paiV2(paiRole("ps", 1, ip(1), ip(-1)), paiRole("worker", 1, ip(1), ip(1))),
			tasks: []Task{tk("ps", 0, Failed, 1, 1), tk("worker", 0, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("ps", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [ps]: Triggered by Task [ps][0]: exit code 1 (OpenPAI would report 255)"},
		},
		// §4.1 rule 3 ("both at once: either"): jobshift breaks the tie by
		// role order then index, so ps (first role) decides.
		"same Seq: role order breaks the tie": {
			job:   paiV2(paiRole("ps", 1, ip(1), ip(-1)), paiRole("worker", 1, ip(1), ip(1))),
			tasks: []Task{tk("worker", 0, Succeeded, 0, 0), tk("ps", 0, Failed, 1, 0)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("ps", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [ps]: Triggered by Task [ps][0]: exit code 1 (OpenPAI would report 255)"},
		},
		// Stopped is neither a success nor a failure (-220/-210 are not
		// counted against minFailed; they only come after completion or a
		// user stop).
		"a stopped task is not a failure": {
			job:   paiV2(paiRole("worker", 2, ip(1), ip(2))),
			tasks: []Task{tk("worker", 0, Stopped, 143, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 2 tasks ended"},
		},
		// Every task ended, some stopped, nothing fired: a user stop, not
		// rule 4's success.
		"user stop: all stopped": {
			job:   psWorkerV2(),
			tasks: []Task{tk("ps", 0, Stopped, 143, 1), tk("ps", 1, Stopped, 143, 2), tk("worker", 0, Stopped, 143, 3), tk("worker", 1, Succeeded, 0, 4)},
			want: Verdict{Phase: PhaseStopped, ExitCode: 143,
				Reason: "stopped: every task ended, 3 of them stopped from outside the job (jobshift stop, the engine or a signal), before any completion rule fired"},
		},
		// The reader left Completion.Kind empty: inferred from the format.
		"kind inferred from format": {
			job:   with(psWorkerV2(), func(j *jobs.Job) { j.Completion.Kind = "" }),
			tasks: []Task{run("ps", 0), run("ps", 1), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("worker", 1),
				Reason: "SucceededTaskCount 2 has reached MinSucceededTaskCount 2 in TaskRole [worker]: Triggered by Task [worker][1]",
				Stop:   []TaskRef{ref("ps", 0), ref("ps", 1)}},
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

// Jobs of a kind without rules (a format no reader produces): the
// job waits for every task; any failure fails it (README "Other kinds").
func TestDecideGeneric(t *testing.T) {
	mpi := func() *jobs.Job {
		return &jobs.Job{Name: "m", Source: jobs.Source{Format: jobs.Format("other")},
			Roles: []*jobs.Role{{Name: "launcher", Instances: 1}, {Name: "worker", Instances: 2}}}
	}
	cases := map[string]struct {
		tasks []Task
		want  Verdict
	}{
		"a failure does not end it early": {
			tasks: []Task{run("launcher", 0), tk("worker", 0, Failed, 3, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		"all ended, one failed": {
			tasks: []Task{tk("launcher", 0, Succeeded, 0, 3), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Failed, 3, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 3, Trigger: refp("worker", 1),
				Reason: "every task ended; worker-1 failed with exit code 3"},
		},
		"all succeeded": {
			tasks: []Task{tk("launcher", 0, Succeeded, 0, 3), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:  Verdict{Phase: PhaseSucceeded, Trigger: refp("launcher", 0), Reason: "every task succeeded"},
		},
		"stopped": {
			tasks: []Task{tk("launcher", 0, Stopped, 143, 3), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Failed, 3, 2)},
			want: Verdict{Phase: PhaseStopped, ExitCode: 143,
				Reason: "stopped: every task ended, 1 of them stopped from outside the job (jobshift stop, the engine or a signal), before any completion rule fired"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Decide(mpi(), c.tasks)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUserStopped: a stop from outside gives one verdict on every target
// (phase stopped, exit 143), unless a rule had already decided the job.
func TestUserStopped(t *testing.T) {
	stopped := Verdict{Phase: PhaseStopped, ExitCode: 143, Reason: "stopped by the user"}
	cases := map[string]struct {
		tasks []Task
		want  Verdict
	}{
		"every task stopped while running": {
			tasks: []Task{tk("ps", 0, Stopped, 143, 1), tk("ps", 1, Stopped, 137, 1), tk("worker", 0, Stopped, 143, 1), tk("worker", 1, Stopped, 143, 1)},
			want:  stopped,
		},
		"stopped before any task started": {tasks: nil, want: stopped},
		"one worker had succeeded, no rule fired": {
			tasks: []Task{tk("ps", 0, Stopped, 143, 1), tk("ps", 1, Stopped, 143, 1), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Stopped, 143, 2)},
			want:  stopped,
		},
		"a failure had already failed the job": {
			tasks: []Task{tk("ps", 0, Stopped, 143, 2), tk("ps", 1, Stopped, 143, 2), tk("worker", 0, Failed, 3, 1), tk("worker", 1, Stopped, 143, 2)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 3, Trigger: refp("worker", 0),
				Reason: "FailedTaskCount 1 has reached MinFailedTaskCount 1 in TaskRole [worker]: Triggered by Task [worker][0]: exit code 3 (OpenPAI would report 255)"},
		},
	}
	for name, c := range cases {
		got := UserStopped(psWorkerV2(), c.tasks)
		got.Stop, got.Keep = nil, nil
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
