package slurm_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
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
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	running, stopped := map[string]bool{}, false
	var final *drivers.Result
	for e := range events {
		if e.Task != nil && e.State == completion.Running {
			running[fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)] = true
		}
		if len(running) == 3 && !stopped {
			stopped = true
			if err := d.Stop(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if !stopped || final == nil {
		t.Fatalf("stopped %v, final %+v", stopped, final)
	}
	if final.Phase != completion.PhaseStopped || final.ExitCode != completion.StoppedExitCode {
		t.Errorf("final %+v, want phase %s exit %d", final, completion.PhaseStopped, completion.StoppedExitCode)
	}
}
