package nomad_test

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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

// TestTrainJobTorchOnDocker runs examples/trainjob-torch.yaml in the torch
// image (the runtime's pytorch image mapped to it by a site rule): the
// containers have no task view, so PET_MASTER_ADDR is node 0's address,
// and every node ends with the same parameters.
func TestTrainJobTorchOnDocker(t *testing.T) {
	needDocker(t)
	if err := exec.Command("docker", "image", "inspect", torchImage).Run(); err != nil {
		t.Skip("image " + torchImage + " is missing: run integration/nomad/build-torch-image.sh")
	}
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "pytorch/pytorch:*", Replace: torchImage}}}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "trainjob-torch.yaml"), cfg)
	// No volume carries the checkout into the container: send the script
	// itself (the rest of the command is unchanged).
	src, err := os.ReadFile(filepath.Join(agent.Repo(), "examples", "ddp_train.py"))
	if err != nil {
		t.Fatal(err)
	}
	c := p.Job.Role("node").Command.Command // [sh, -c, SCRIPT]
	script := strings.Replace(c[len(c)-1], "python3 examples/ddp_train.py", `python3 -c "$(echo `+base64.StdEncoding.EncodeToString(src)+` | base64 -d)"`, 1)
	if script == c[len(c)-1] {
		t.Fatalf("the example's command %q no longer runs examples/ddp_train.py", c)
	}
	c[len(c)-1] = script
	res, sums := runTraining(t, p, trainJobChecksumRe)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Errorf("checksums %v, want three equal", sums)
	}
}
