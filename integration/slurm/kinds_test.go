package slurm_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// TestXGBoost: the XGBoostJob example trains with XGBoost's collective
// across Slurm steps (Master and Workers, het and packed layouts); every
// process was given exactly the oracle's variables.
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
			checkPrintedEnv(t, r)
		})
	}
}

// checkPrintedEnv: every task of a training-operator kind's example
// printed (drivertest.PrintedEnv) exactly the oracle's variables for the
// hosts and ports Slurm gave its last attempt.
func checkPrintedEnv(t *testing.T, r *run) {
	t.Helper()
	adir := filepath.Join(r.state, fmt.Sprintf("attempt-%d", max(1, r.final.Attempts)))
	opts := contract.Options{User: r.plan.User, Contracts: r.plan.Contracts}
	topo := readTopology(t, r.job, opts, adir)
	unsafe := regexp.MustCompile(`[^A-Za-z0-9._-]`)
	for _, role := range r.job.Roles {
		for i := range role.Instances {
			out, err := os.ReadFile(filepath.Join(adir, unsafe.ReplaceAllString(role.Name, "_")+fmt.Sprintf("-%d.out", i)))
			if err != nil {
				t.Fatal(err)
			}
			drivertest.CheckPrintedEnv(t, r.job, topo, opts, jobs.TaskRef{Role: role.Name, Index: i}, string(out))
		}
	}
}
