package slurm_test

import (
	"context"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestStoppedJobVerdict: a job stopped by the user (jobshift stop, i.e.
// scancel) while every task runs ends with the completion engine's
// stopped verdict (phase stopped, exit 143), as on local and Nomad.
func TestStoppedJobVerdict(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/testdata/stop-sleepers.json", nil)
	d := slurm.New(drivers.Config{Options: map[string]string{"watch_interval": "500ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	final := drivertest.StopOnceRunning(ctx, t, d, h, 3)
	if final.Phase != completion.PhaseStopped || final.ExitCode != completion.StoppedExitCode {
		t.Errorf("final %+v, want phase %s exit %d", final, completion.PhaseStopped, completion.StoppedExitCode)
	}
}
