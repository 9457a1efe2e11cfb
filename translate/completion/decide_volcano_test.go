package completion

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// vcJob: master×1 and worker×2 under pod restartPolicy policy, with the
// webhook's defaults (maxRetry 3, minAvailable = replicas).
func vcJob(policy string, f func(v *jobs.Volcano)) *jobs.Job {
	v := &jobs.Volcano{MinAvailable: 3, MaxRetry: 3, Tasks: []jobs.VolcanoTask{
		{Name: "master", MinAvailable: 1, MaxRetry: 3}, {Name: "worker", MinAvailable: 2, MaxRetry: 3}}}
	if f != nil {
		f(v)
	}
	return &jobs.Job{Name: "vc", Source: jobs.Source{Format: jobs.FormatVolcano},
		Completion: jobs.Completion{Kind: jobs.CompletionVolcano}, Extras: jobs.Extras{Volcano: v},
		Roles: []*jobs.Role{{Name: "master", Instances: 1, RestartPolicy: policy}, {Name: "worker", Instances: 2, RestartPolicy: policy}}}
}

func pol(action string, events ...string) jobs.VolcanoPolicy {
	return jobs.VolcanoPolicy{Events: events, Action: action}
}

func code(action string, c int) jobs.VolcanoPolicy {
	return jobs.VolcanoPolicy{ExitCode: &c, Action: action}
}

// TestVolcanoMatch: applyPolicies (pkg/controllers/job/job_controller_util.go
// @v1.16.0-alpha.1): task policies before job policies; in order; in one
// policy events (or "*") before its exit code; the first match wins;
// PodPending needs a timeout; a job-level event (no task) skips the task's
// policies.
func TestVolcanoMatch(t *testing.T) {
	v := &jobs.Volcano{
		Policies: []jobs.VolcanoPolicy{pol("AbortJob", "PodFailed"), code("TerminateJob", 7), pol("RestartJob", "Unknown"), pol("CompleteJob", "PodPending")},
		Tasks: []jobs.VolcanoTask{{Name: "w", Policies: []jobs.VolcanoPolicy{code("RestartJob", 3), pol("CompleteJob", "TaskCompleted")}},
			{Name: "any", Policies: []jobs.VolcanoPolicy{pol("RestartPod", "*")}}}}
	cases := map[string]struct {
		task, event string
		code        int
		want        string
	}{
		"task exit code before job event":  {"w", "PodFailed", 3, "RestartJob"},
		"job event when no task code":      {"w", "PodFailed", 4, "AbortJob"},
		"task event":                       {"w", "TaskCompleted", 0, "CompleteJob"},
		"* matches any event of the task":  {"any", "TaskFailed", 0, "RestartPod"},
		"job exit code":                    {"other", "", 7, "TerminateJob"},
		"Unknown has no task":              {"", "Unknown", 0, "RestartJob"},
		"PodPending without timeout skips": {"other", "PodPending", 0, ""},
		"no match":                         {"w", "TaskFailed", 0, ""},
	}
	for name, c := range cases {
		p, ok := VolcanoMatch(v, c.task, c.event, c.code)
		if got := map[bool]string{true: p.Action}[ok]; got != c.want {
			t.Errorf("%s: got %q, want %q", name, got, c.want)
		}
	}
}

// TestDecideVolcano: the actions (pkg/controllers/job/state/running.go
// Execute) and the sync rules (running.go SyncJob) @v1.16.0-alpha.1.
func TestDecideVolcano(t *testing.T) {
	cases := map[string]struct {
		job    *jobs.Job
		tasks  []Task
		phase  Phase
		code   int
		action string
		reason string
		stop   int
	}{
		"TaskCompleted → CompleteJob: master done, never-ending workers stopped": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Tasks[0].Policies = []jobs.VolcanoPolicy{pol("CompleteJob", "TaskCompleted")} }),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			phase: PhaseSucceeded, reason: "Completed", stop: 2,
		},
		"PodFailed → AbortJob": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("AbortJob", "PodFailed")} }),
			tasks: []Task{run("master", 0), tk("worker", 1, Failed, 2, 1), run("worker", 0)},
			phase: PhaseFailed, code: 2, reason: "Aborted", stop: 2,
		},
		"exitCode 3 → RestartJob: the attempt ends asking for a retry": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{code("RestartJob", 3)} }),
			tasks: []Task{tk("master", 0, Failed, 3, 1), run("worker", 0), run("worker", 1)},
			phase: PhaseFailed, code: 3, action: "RestartJob", reason: "Restarting", stop: 2,
		},
		"* → RestartJob matches TaskCompleted too: a job whose every pod succeeded restarts (job_controller_util.go applyPolicies: AnyEvent)": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartJob", "*")} }),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			phase: PhaseFailed, code: 1, action: "RestartJob", reason: "TaskCompleted of master-0 → RestartJob", stop: 2,
		},
		"exitCode 4 under an exitCode 3 policy: nothing, the job goes on": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{code("RestartJob", 3)} }),
			tasks: []Task{tk("master", 0, Failed, 4, 1), run("worker", 0), run("worker", 1)},
			phase: PhaseRunning,
		},
		"TaskFailed → TerminateJob (OnFailure pod whose restarts ran out)": {
			job:   vcJob("OnFailure", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("TerminateJob", "TaskFailed")} }),
			tasks: []Task{run("master", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			phase: PhaseFailed, code: 1, reason: "Terminated", stop: 2,
		},
		"exit code policies do not match TaskFailed (its code is 0)": {
			job:   vcJob("OnFailure", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{code("AbortJob", 1)} }),
			tasks: []Task{run("master", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			phase: PhaseRunning,
		},
		"RestartPod refused by maxRetry: Failed": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartPod", "PodFailed")} }),
			tasks: []Task{tk("master", 0, Failed, 1, 1), run("worker", 0), run("worker", 1)},
			phase: PhaseFailed, code: 1, reason: "maxRetry 3 is reached", stop: 2,
		},
		"every pod ended, all succeeded: Completed": {
			job:   vcJob("Never", nil),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), tk("worker", 0, Succeeded, 0, 2), tk("worker", 1, Succeeded, 0, 3)},
			phase: PhaseSucceeded, reason: "Completed",
		},
		"every pod ended, a task below its minAvailable: Failed": {
			job:   vcJob("Never", nil),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), tk("worker", 0, Failed, 5, 2), tk("worker", 1, Succeeded, 0, 3)},
			phase: PhaseFailed, code: 5, reason: "below its minAvailable 2",
		},
		"job minAvailable below the tasks' sum: Succeeded ≥ minAvailable completes": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.MinAvailable = 1 }),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), tk("worker", 0, Failed, 5, 2), tk("worker", 1, Failed, 5, 3)},
			phase: PhaseSucceeded, reason: "Completed",
		},
		"minSuccess reached completes at once": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.MinSuccess = ip(2) }),
			tasks: []Task{run("master", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			phase: PhaseSucceeded, reason: "minSuccess 2", stop: 1,
		},
		"minSuccess not reached when every pod ended: Failed": {
			job: vcJob("Never", func(v *jobs.Volcano) {
				v.MinSuccess, v.MinAvailable = ip(3), 1
			}),
			tasks: []Task{tk("master", 0, Succeeded, 0, 1), tk("worker", 0, Succeeded, 0, 2), tk("worker", 1, Failed, 9, 3)},
			phase: PhaseFailed, code: 9, reason: "below minSuccess 3",
		},
		"TaskCompleted needs every pod of the task": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Tasks[1].Policies = []jobs.VolcanoPolicy{pol("CompleteJob", "TaskCompleted")} }),
			tasks: []Task{run("master", 0), tk("worker", 0, Succeeded, 0, 1), run("worker", 1)},
			phase: PhaseRunning,
		},
	}
	for name, c := range cases {
		v := Decide(c.job, c.tasks)
		if v.Phase != c.phase || v.ExitCode != c.code || v.PolicyAction != c.action || !strings.Contains(v.Reason, c.reason) || len(v.Stop) != c.stop {
			t.Errorf("%s: got %+v", name, v)
		}
	}
}

// TestVolcanoRetries: RestartJob retries while RetryCount+1 < maxRetry
// (running.go RetryCount++, restarting.go restartingUpdateStatus: Failed at
// RetryCount ≥ maxRetry), so maxRetry 3 runs the job 3 times; in-place
// restarts: the pod's restartPolicy up to the task's maxRetry
// (jobCache.TaskFailed), RestartPod/RestartTask up to the job's maxRetry.
func TestVolcanoRetries(t *testing.T) {
	j := vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{code("RestartJob", 3), code("RestartPod", 4)} })
	restart := Verdict{Phase: PhaseFailed, ExitCode: 3, PolicyAction: ActionRestartJob}
	for so, want := range []bool{true, true, false} {
		if got := JobRetry(j, restart, so).Retry; got != want {
			t.Errorf("RestartJob after %d retries: %v, want %v", so, got, want)
		}
	}
	if JobRetry(j, Verdict{Phase: PhaseFailed, ExitCode: 1}, 0).Retry {
		t.Error("a failure without RestartJob is retried")
	}
	for so, want := range []bool{true, true, false} {
		if got := TaskRestartDecision(j, "worker", 4, so).Retry; got != want {
			t.Errorf("RestartPod after %d restarts: %v, want %v", so, got, want)
		}
	}
	if TaskRestartDecision(j, "worker", 5, 0).Retry || TaskRestartDecision(j, "worker", 0, 0).Retry {
		t.Error("Never pod restarted without a RestartPod policy")
	}
	of := vcJob("OnFailure", func(v *jobs.Volcano) { v.Tasks[1].MaxRetry = 2 })
	for so, want := range []bool{true, true, false} {
		if got := TaskRestartDecision(of, "worker", 1, so).Retry; got != want {
			t.Errorf("OnFailure after %d restarts (task maxRetry 2): %v, want %v", so, got, want)
		}
	}
	if TaskRestartDecision(of, "worker", 0, 0).Retry {
		t.Error("OnFailure restarted a success")
	}
	al := vcJob("Always", func(v *jobs.Volcano) { v.Tasks[0].MaxRetry = -1 })
	if !TaskRestartDecision(al, "master", 0, 1000).Retry {
		t.Error("Always with maxRetry -1 stopped restarting")
	}
}
