package completion

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// TestDecideVolcanoEvicted: a task lost with its host (ExitHostLost) is a
// pod deleted from its lost node, and deletePod raises PodEvicted with no
// exit code whatever the pod's restartPolicy (job_controller_handler.go
// deletePod; test/e2e/jobseq/job_error_handling.go "delete one pod of
// job" → PodEvicted → RestartJob, @v1.16.0-alpha.1); PodFailed, TaskFailed
// and exit-code policies do not match it, "*" does.
func TestDecideVolcanoEvicted(t *testing.T) {
	lost := func(role string, i int) Task { return tk(role, i, Failed, ExitHostLost, 1) }
	cases := map[string]struct {
		job    *jobs.Job
		phase  Phase
		code   int
		action string
		reason string
		stop   int
	}{
		"PodEvicted → RestartJob": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartJob", "PodEvicted")} }),
			phase: PhaseFailed, code: -1001, action: "RestartJob", reason: "PodEvicted of worker-1 → RestartJob", stop: 2,
		},
		"task * → AbortJob matches PodEvicted": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Tasks[1].Policies = []jobs.VolcanoPolicy{pol("AbortJob", "*")} }),
			phase: PhaseFailed, code: -1001, reason: "Aborted: PodEvicted of worker-1 → AbortJob", stop: 2,
		},
		"PodEvicted under OnFailure too (not TaskFailed) → TerminateJob": {
			job:   vcJob("OnFailure", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("TerminateJob", "PodEvicted")} }),
			phase: PhaseFailed, code: -1001, reason: "Terminated: PodEvicted of worker-1", stop: 2,
		},
		"PodFailed → AbortJob does not match a lost pod": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("AbortJob", "PodFailed")} }),
			phase: PhaseRunning,
		},
		"TaskFailed → AbortJob does not match a lost pod": {
			job:   vcJob("OnFailure", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("AbortJob", "TaskFailed")} }),
			phase: PhaseRunning,
		},
		"PodEvicted → RestartPod: a lost task is not restarted in place": {
			job:   vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartPod", "PodEvicted")} }),
			phase: PhaseFailed, code: -1001, reason: "cannot be restarted in place", stop: 2,
		},
	}
	for name, c := range cases {
		v := Decide(c.job, []Task{run("master", 0), run("worker", 0), lost("worker", 1)})
		if v.Phase != c.phase || v.ExitCode != c.code || v.PolicyAction != c.action || !strings.Contains(v.Reason, c.reason) || len(v.Stop) != c.stop {
			t.Errorf("%s: got %+v", name, v)
		}
	}
}
