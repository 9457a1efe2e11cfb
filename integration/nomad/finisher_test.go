package nomad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
)

// helper builds the jobshift binary the finisher tasks run.
func helper(t *testing.T) string {
	t.Helper()
	return drivertest.Jobshift(t)
}

// TestFinisherWithoutJobshiftProcess: submitted with plain `nomad job run`
// and nothing of jobshift running, the job still ends by its rule: the
// poststop finisher records the verdict, stops the PS and deletes the
// job's secrets Variable (written here as Submit would have).
func TestFinisherWithoutJobshiftProcess(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	cases := map[string]struct {
		fail      bool
		wantPhase string
		wantCode  string
	}{
		"workers-succeed": {false, "succeeded", "0"},
		"worker-fails":    {true, "failed", "3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site())
			if tc.fail {
				w := p.Job.Role("worker")
				w.Command = jobs.Command{Kind: jobs.CommandEval, Script: `if [ "$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX" = 1 ]; then sleep 1; exit 3; fi; exec sleep 3600`}
			}
			p.Options["id"] = fmt.Sprintf("fin-%d", time.Now().UnixNano()%1e9)
			p.Options[nomad.OptWorkDir] = agent.Repo()
			p.Options[nomad.OptHelper] = helper(t)
			d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
			art, err := d.Render(context.Background(), p)
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
			id := p.Options["id"]
			defer c.Jobs().Deregister(id, true, nil)
			secret := &api.Variable{Path: nomad.VariablePath(id), Items: api.VariableItems{"token": "s3cr3t"}}
			if _, _, err := c.Variables().Create(secret, nil); err != nil {
				t.Fatal(err)
			}
			defer c.Variables().Delete(secret.Path, nil)
			end := time.Now().Add(2 * time.Minute)
			for time.Now().Before(end) {
				v, _, err := c.Variables().Read(nomad.ResultPath(id), nil)
				if err == nil && v != nil {
					if v.Items["phase"] != tc.wantPhase || v.Items["exitCode"] != tc.wantCode {
						t.Fatalf("verdict %v, want %s with exit code %s", v.Items, tc.wantPhase, tc.wantCode)
					}
					// The job is being stopped; wait for every alloc to end.
					for time.Now().Before(end) {
						allocs, _, _ := c.Jobs().Allocations(id, true, nil)
						live := 0
						for _, a := range allocs {
							if a.ClientStatus == "running" || a.ClientStatus == "pending" {
								live++
							}
						}
						if live == 0 {
							drivertest.NoNomadVariable(t, c, nomad.VariablePath(id))
							return
						}
						time.Sleep(500 * time.Millisecond)
					}
					t.Fatal("allocations still running after the verdict")
				}
				time.Sleep(500 * time.Millisecond)
			}
			t.Fatal("no verdict within 2 minutes")
		})
	}
}
