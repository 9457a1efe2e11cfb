package slurm_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// TestTrainJobXGBoost: distributed XGBoost across Slurm tasks from a
// Kubeflow Trainer TrainJob on the built-in xgboost-distributed runtime
// (the DMLC_* variables computed in the allocation).
func TestTrainJobXGBoost(t *testing.T) {
	needCluster(t)
	if exec.Command("/usr/bin/python3", "-c", "import xgboost").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-xgboost is not installed for /usr/bin/python3")
		}
		t.Skip("python3-xgboost not installed")
	}
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	plan := loadPlan(t, "examples/trainjob-xgboost.yaml", nil)
	r := submit(t, plan, 5*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
}
