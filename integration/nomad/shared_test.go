package nomad_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestSharedClaimTFJobOnRawExec: the TFJob's two workers read the
// dataset claim (100 lines) and write their checkpoints to the
// checkpoint claim, mapped per user; the chief reads both, and they are
// in alice's directory of the shared tree afterwards.
func TestSharedClaimTFJobOnRawExec(t *testing.T) {
	shared := t.TempDir()
	for _, d := range []string{"data", "ckpt/alice"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	lines := ""
	for i := range 100 {
		lines += string(rune('a'+i%26)) + "\n"
	}
	if err := os.WriteFile(filepath.Join(shared, "data", "train.txt"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	rules, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	cfg := site()
	cfg.Volumes = rules.Volumes
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "tfjob-shared.yaml"), cfg)
	res, id := run(t, p)
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	chief := ""
	for _, a := range allocs {
		if a.TaskGroup == "chief" {
			chief = catLogs(t, a.ID, nomad.MainTask) + catStderr(t, a.ID, nomad.MainTask)
		}
	}
	want := "shared-worker-0 read 100 lines\nshared-worker-1 read 100 lines\n"
	if res.Phase != completion.PhaseSucceeded || chief != want {
		t.Fatalf("result %+v, chief printed %q, want %q", res, chief, want)
	}
	for i, name := range []string{"shared-worker-0", "shared-worker-1"} {
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", "alice", name+".ckpt")); err != nil || string(b) != name+" read 100 lines\n" {
			t.Errorf("worker %d's checkpoint in the shared tree: %q, %v", i, b, err)
		}
	}
}
