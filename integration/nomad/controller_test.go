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
)

// TestControllerEnforcesPlainNomadJobRun: the converted HCL submitted with
// plain `nomad job run` (no jobshift process involved) is finished by the
// controller: workers succeed, PS are stopped, the verdict is recorded,
// and the job's secrets Variable (written here as Submit would have) is
// deleted.
func TestControllerEnforcesPlainNomadJobRun(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site())
	p.Options["id"] = fmt.Sprintf("ctl-%d", time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWorkDir] = agent.Repo()
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

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ct := &nomad.Controller{D: d.(*nomad.Driver), Log: nil, Every: 2 * time.Second}
	go ct.Run(ctx)
	for ctx.Err() == nil {
		v, _, err := c.Variables().Read(nomad.ResultPath(id), nil)
		if err == nil && v != nil {
			if v.Items["phase"] != "succeeded" {
				t.Fatalf("verdict %v", v.Items)
			}
			info, _, _ := c.Jobs().Info(id, nil)
			if info.Stop == nil || !*info.Stop {
				t.Error("job not stopped")
			}
			allocs, _, _ := c.Jobs().Allocations(id, true, nil)
			for _, a := range allocs {
				if a.ClientStatus == "running" {
					t.Errorf("%s still running", a.Name)
				}
			}
			drivertest.NoNomadVariable(t, c, nomad.VariablePath(id))
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the controller recorded no verdict within 2 minutes")
}
