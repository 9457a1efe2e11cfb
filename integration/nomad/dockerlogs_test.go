package nomad_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestDockerShortOutputKept: eight containers that print a line and exit
// within ms, started together on one client, each have their line in
// their log. Nomad's docker logger is stopped when its container exits
// and lost such output (hashicorp/nomad#6931; CI lost one of three
// tests' in a run): the shape's log drain tail keeps it. Without the
// tail this test lost lines in most runs here.
func TestDockerShortOutputKept(t *testing.T) {
	needDocker(t)
	if exec.Command("docker", "image", "inspect", mpiImage).Run() != nil {
		t.Skip("no " + mpiImage + " image here: integration/nomad/build-mpi-image.sh")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "busybox", Replace: mpiImage}}}
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "short-output.yaml"), cfg)
	res, _, id := runStates(t, p)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, a := range allocs {
		logs = append(logs, catLogs(t, a.ID, nomad.MainTask))
	}
	for i := range 8 {
		if want := fmt.Sprintf("worker %d done\n", i); !slices.Contains(logs, want) {
			t.Errorf("no log is %q; logs: %q", want, logs)
		}
	}
}
