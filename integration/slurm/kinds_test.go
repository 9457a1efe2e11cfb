package slurm_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// TestXGBoost: the XGBoostJob example trains with XGBoost's collective
// across Slurm steps (Master and Workers, het and packed layouts).
func TestXGBoost(t *testing.T) {
	needCluster(t)
	if exec.Command("/usr/bin/python3", "-c", "import xgboost").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-xgboost is not installed for /usr/bin/python3")
		}
		t.Skip("python3-xgboost not installed")
	}
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	for _, layout := range []string{"het", "packed"} {
		t.Run(layout, func(t *testing.T) {
			plan := loadPlan(t, "examples/xgboostjob-iris.yaml", map[string]string{"layout": layout})
			r := submit(t, plan, 5*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
				t.Fatalf("final = %+v", r.final)
			}
		})
	}
}
