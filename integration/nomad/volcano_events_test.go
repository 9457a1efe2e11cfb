package nomad_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// unknownSite: a short gang timeout, so that an attempt whose gang is not
// placed whole ends soon.
func unknownSite() *siteconfig.Config {
	return &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "8s"}}
}

// TestVolcanoUnknownOnNomad: a Volcano job whose worker asks for memory no
// client has, with a job policy on the Unknown event. Volcano raises
// Unknown when part of the gang runs and the rest cannot be scheduled
// (pkg/scheduler/framework/session.go getPodGroupPhase, PodGroup Unknown;
// job_controller_handler.go updatePodGroup → JobUnknownEvent;
// test/e2e/jobseq/job_error_handling.go "Abort job when job is
// unschedulable" and "Restart job when job is unschedulable",
// @v1.16.0-alpha.1). The converted file, registered with plain `nomad job
// run`, gets its ps placed and its worker queued; the watcher raises
// Unknown at the gang timeout: AbortJob fails the job after one attempt,
// RestartJob runs it again (the ps placed once per attempt) until
// maxRetry 2 refuses. Upstream raises Unknown only while some pod runs
// (its gang scheduler binds no pod of a gang it cannot place whole): the
// gang timeout as Unknown is issue 41's reading.
func TestVolcanoUnknownOnNomad(t *testing.T) {
	for name, c := range map[string]struct {
		file, action string
		attempts     int
	}{
		"abortjob":   {"volcano-unknown-abortjob.yaml", "AbortJob", 1},
		"restartjob": {"volcano-unknown-restartjob.yaml", "RestartJob", 2},
	} {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", c.file), unknownSite())
			res, placed := runPartlyPlaced(t, p)
			if res.Phase != "failed" || res.Attempts != c.attempts {
				t.Errorf("result = %+v, want failed after %d attempt(s)", res, c.attempts)
			}
			if placed["ps"] != c.attempts || placed["worker"] != 0 {
				t.Errorf("allocations placed per group: %v, want ps %d, worker 0", placed, c.attempts)
			}
			for _, want := range []string{"Unknown", nomad.GangTimeoutReason, c.action} {
				if !strings.Contains(res.Reason, want) {
					t.Errorf("reason %q lacks %q", res.Reason, want)
				}
			}
		})
	}
}

// runPartlyPlaced renders p as `jobshift convert` does, registers it with
// `nomad job run -detach` (which, unlike jobshift's Submit, places what
// fits and queues the rest), watches it to its verdict and checks that no
// allocation is left running; it returns the verdict and the number of
// allocations each group got over every attempt. jobshift's own Submit
// refuses the same plan.
func runPartlyPlaced(t *testing.T, p *translate.Plan) (*drivers.Result, map[string]int) {
	t.Helper()
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	id := fmt.Sprintf("%s-%d", p.Job.Name, time.Now().UnixNano()%1e9)
	p.Options["id"] = id
	p.Options[nomad.OptWorkDir] = agent.Repo()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if h, err := d.Submit(ctx, p); !errors.Is(err, nomad.ErrPlacement) {
		if err == nil {
			_ = d.Stop(ctx, h)
		}
		t.Fatalf("jobshift submit: err = %v, want ErrPlacement", err)
	}
	art, err := d.Render(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "job.nomad.hcl")
	if err := os.WriteFile(f, art.Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(agent.Binary(), "job", "run", "-detach", f).CombinedOutput(); err != nil {
		t.Fatalf("nomad job run: %v\n%s", err, out)
	}
	defer c.Jobs().Deregister(id, true, nil)
	events, err := d.Watch(ctx, drivers.Handle{Driver: nomad.TargetHCL, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range events {
		if e.Task != nil {
			t.Logf("%s-%d attempt %d %s %d %s", e.Task.Role, e.Task.Index, e.Attempt, e.State, e.ExitCode, e.Message)
		} else {
			t.Logf("job: %s", e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result", id)
	}
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	placed := map[string]int{}
	for _, a := range allocs {
		placed[a.TaskGroup]++
		if a.ClientStatus == "running" || a.ClientStatus == "pending" {
			t.Errorf("%s still %s after the verdict", a.Name, a.ClientStatus)
		}
	}
	return final, placed
}
