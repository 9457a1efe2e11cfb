package nomad_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestStoppedJobVerdict: a job stopped by the user while every task runs
// ends with the completion engine's stopped verdict (phase stopped, exit
// 143), as on local and Slurm.
func TestStoppedJobVerdict(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "stop-sleepers.json"), site())
	p.Options["id"] = fmt.Sprintf("stop-%d", time.Now().UnixNano()%1e9)
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Client(t).Jobs().Deregister(h.ID, true, nil)
	final := drivertest.StopOnceRunning(ctx, t, d, h, 3)
	// the stop is the user's (jobshift stop), before any rule fired: the
	// verdict every judge gives, status of an unwatched stopped job too
	if final.Phase != completion.PhaseStopped || final.ExitCode != completion.StoppedExitCode || final.Reason != "stopped by the user" {
		t.Errorf("final %+v, want phase %s exit %d, reason %q", final, completion.PhaseStopped, completion.StoppedExitCode, "stopped by the user")
	}
}
