package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestVolcanoRestartTaskRestartsSiblings: worker-0 exits 3, which a
// RestartTask policy matches; Volcano kills every pod of the task
// (job_controller_actions.go killPods, TargetTypeTask, @v1.16.0-alpha.1),
// so worker-1, which would sleep a minute and fail, is stopped and
// started again in place with it, and both succeed on their second runs.
// worker-1's first run ends by jobshift's SIGTERM (stopped, 143), its
// restart names worker-0's RestartTask, and it came seconds, not a
// minute, after the start.
func TestVolcanoRestartTaskRestartsSiblings(t *testing.T) {
	runs := t.TempDir()
	plan := loadPlan(t, filepath.Join("..", "..", "examples", "testdata", "volcano-policy-restarttask-all.yaml"))
	began := time.Now()
	res, dir, evs := runPlan(t, plan, Options{Env: append(os.Environ(), "VC_RUNS="+runs)})
	if res.Phase != completion.PhaseSucceeded || res.Attempts != 1 {
		t.Fatalf("result = %+v, want succeeded in 1 attempt", res)
	}
	want := []string{"worker-0/attempt-1", "worker-0/attempt-1-restart-1", "worker-1/attempt-1", "worker-1/attempt-1-restart-1"}
	if diff := cmp.Diff(want, starts(t, dir)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
	var sibling bool
	for _, e := range evs {
		if e.Task == nil || refString(*e.Task) != "worker-1" || e.State != completion.Stopped {
			continue
		}
		if !strings.Contains(e.Message, "RestartTask of worker-0") || e.ExitCode != 143 {
			t.Errorf("worker-1's first end: %+v, want stopped (143) by worker-0's RestartTask", e)
		}
		if d := e.Time.Sub(began); d > 30*time.Second {
			t.Errorf("worker-1's first run ended after %s: by itself, not by the RestartTask", d)
		}
		sibling = true
	}
	if !sibling {
		t.Errorf("no stopped end of worker-1's first run in the events:\n%v", evs)
	}
}
