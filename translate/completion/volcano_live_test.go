package completion

import (
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// TestVolcanoRetryExhausted: the attempt's policy restarts of every task,
// in order of time (ties in task order), each add one to RetryCount from
// the seed (state/running.go); the one that brings it to maxRetry fails the
// job (restarting.go restartingUpdateStatus, @v1.16.0-alpha.1).
func TestVolcanoRetryExhausted(t *testing.T) {
	job := vcJob("Never", nil) // maxRetry 3
	t0 := time.Unix(1000, 0)
	at := func(role string, i int, s int) PolicyRestart {
		return PolicyRestart{Task: TaskRef{Role: role, Index: i}, At: t0.Add(time.Duration(s) * time.Second), Code: 3, Action: ActionRestartPod}
	}
	cases := []struct {
		seed int
		rs   []PolicyRestart
		want TaskRef // zero: RetryCount stays below maxRetry
	}{
		{0, []PolicyRestart{at("worker", 0, 1), at("worker", 1, 2)}, TaskRef{}},
		{0, []PolicyRestart{at("worker", 0, 5), at("worker", 1, 2), at("worker", 0, 1)}, TaskRef{Role: "worker", Index: 0}},
		// a tie: worker-0 counts before worker-1
		{0, []PolicyRestart{at("worker", 1, 3), at("master", 0, 1), at("worker", 0, 3), at("worker", 1, 9)}, TaskRef{Role: "worker", Index: 1}},
		{2, []PolicyRestart{at("worker", 1, 4), at("worker", 0, 8)}, TaskRef{Role: "worker", Index: 1}},
		{1, []PolicyRestart{at("master", 0, 1)}, TaskRef{}},
	}
	for i, tc := range cases {
		r, ok := VolcanoRetryExhausted(job, tc.seed, tc.rs)
		if ok != (tc.want != TaskRef{}) || ok && r.Task != tc.want {
			t.Errorf("case %d: %v %+v, want %v", i, ok, r, tc.want)
		}
	}
	if _, ok := VolcanoRetryExhausted(crashlessJob(), 0, []PolicyRestart{at("worker", 0, 1)}); ok {
		t.Error("a job that is no Volcano Job has no RetryCount")
	}
}

func crashlessJob() *jobs.Job {
	return &jobs.Job{Name: "pt", Completion: jobs.Completion{Kind: jobs.CompletionPyTorch}, Roles: []*jobs.Role{{Name: "worker", Instances: 1}}}
}

// TestVolcanoRestartTaskAt: Volcano kills the task's pods when the
// RestartTask action runs: at the failure, or once the policy's timeout
// ran out (job_controller_util.go applyPolicies delayAct, killPods
// TargetTypeTask, @v1.16.0-alpha.1); a RestartPod kills no other pod.
func TestVolcanoRestartTaskAt(t *testing.T) {
	p := code(ActionRestartTask, 3)
	p.TimeoutSeconds = 4
	job := vcJob("Never", func(v *jobs.Volcano) { v.Tasks[1].Policies = []jobs.VolcanoPolicy{p, code(ActionRestartTask, 5)} })
	t0 := time.Unix(1000, 0)
	r := PolicyRestart{Task: TaskRef{Role: "worker", Index: 1}, At: t0, Code: 3, Action: ActionRestartTask}
	if got := VolcanoRestartTaskAt(job, r); !got.Equal(t0.Add(4 * time.Second)) {
		t.Errorf("with a 4s timeout: %v, want 4s after the failure", got.Sub(t0))
	}
	r.Code = 5
	if got := VolcanoRestartTaskAt(job, r); !got.Equal(t0) {
		t.Errorf("without a timeout: %v, want the failure's time", got.Sub(t0))
	}
	r.Action = ActionRestartPod
	if got := VolcanoRestartTaskAt(job, r); !got.IsZero() {
		t.Errorf("RestartPod: %v, want none", got)
	}
}
