package nomad_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

var trainJobChecksumRe = regexp.MustCompile(`rank (\d) of 3 checksum (\S+)`)

// TestTrainJobTorchOnRawExec runs examples/trainjob-torch.yaml (a
// Kubeflow Trainer v2 TrainJob on the built-in torch-distributed runtime,
// three nodes, gloo on CPU) on raw_exec: every node trains from the
// PET_* variables and ends with the same parameters.
func TestTrainJobTorchOnRawExec(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/torch"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-torch is not installed")
		}
		t.Skip("python3-torch is not installed")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-torch.yaml"), cfg)
	res, sums := runTraining(t, p, trainJobChecksumRe)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}

// TestTrainJobXGBoostOnRawExec runs examples/trainjob-xgboost.yaml (the
// built-in xgboost-distributed runtime, three CPU nodes) on raw_exec.
func TestTrainJobXGBoostOnRawExec(t *testing.T) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/xgboost"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-xgboost is not installed")
		}
		t.Skip("python3-xgboost is not installed")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}, Roles: torchPath}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-xgboost.yaml"), cfg)
	res, id := run(t, p)
	defer agent.Client(t).Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
}
