package slurm_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/envdump"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// envDumped wraps plan's commands (envdump.Wrap: the tasks share this
// machine's file system) and returns the check of the environments they
// started with against the oracle's for where they ran.
func envDumped(t *testing.T, plan *translate.Plan) func(*run) {
	t.Helper()
	dumps := t.TempDir()
	wrapped := envdump.Wrap(t, plan, dumps)
	return func(r *run) {
		t.Helper()
		opts := slurmContract(plan)
		topo := readTopology(t, r.job, opts, filepath.Join(r.state, "attempt-1"))
		envdump.Check(t, r.job, topo, opts, dumps, wrapped, repoRoot())
	}
}

// slurmContract are the contract options the Slurm driver renders with
// (drivers/slurm render.go): the MPI directory named at run time, the
// trainer role under the task view (no Apptainer here).
func slurmContract(p *translate.Plan) contract.Options {
	o := p.Compiled().ContractOn("")
	o.MPIDirRunTime = true
	o.HostNames = contract.NamesRole(p.Job) != ""
	return o
}

// TestTrainJobXGBoost: distributed XGBoost across Slurm tasks from a
// Kubeflow Trainer TrainJob on the built-in xgboost-distributed runtime
// (the DMLC_* variables computed in the allocation, every task's the
// oracle's).
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
	check := envDumped(t, plan)
	r := submit(t, plan, 5*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	check(r)
}

var datasetRows = regexp.MustCompile(`(?m)^rank (\d+) of 2 read 32 of 64 rows, sum (\d+)$`)

// TestTrainJobInitializer: examples/trainjob-initializer.yaml under Slurm:
// the dataset initializer step writes into the runtime's hostPath volume
// at /workspace (bound by the task view), the trainer's two nodes start
// once it completed and each reads its half.
func TestTrainJobInitializer(t *testing.T) {
	needCluster(t)
	const host = "/tmp/jobshift-example-workspace" // the job's hostPath
	if _, err := os.Stat(host); err == nil {
		t.Skipf("%s exists: not this test's to use", host)
	}
	if err := os.Mkdir(host, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(host)
	_ = os.Chmod(host, 0o777) // the tasks' user writes there
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	plan := loadPlan(t, "examples/trainjob-initializer.yaml", nil)
	check := envDumped(t, plan)
	r := submit(t, plan, 3*time.Minute)
	adir := filepath.Join(r.state, "attempt-1")
	if r.final.Phase != completion.PhaseSucceeded {
		errOut, _ := os.ReadFile(filepath.Join(adir, "node-0.err"))
		t.Fatalf("final = %+v; node-0 stderr:\n%s", r.final, errOut)
	}
	check(r)
	sums := map[string]string{}
	for i := range 2 {
		b, _ := os.ReadFile(filepath.Join(adir, fmt.Sprintf("node-%d.out", i)))
		for _, m := range datasetRows.FindAllStringSubmatch(string(b), -1) {
			sums[m[1]] = m[2]
		}
	}
	// rows i with i*i, split by rank: even rows sum 41664, odd 43680
	if sums["0"] != "41664" || sums["1"] != "43680" {
		t.Errorf("sums by rank %v, want 0:41664 1:43680", sums)
	}
	if _, err := os.Stat(filepath.Join(host, "dataset", "rows.txt")); err != nil {
		t.Errorf("the initializer's output is not in the volume: %v", err)
	}
}
