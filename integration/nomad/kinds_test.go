package nomad_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// TestXGBoostOnRawExec: the XGBoostJob example trains with XGBoost's
// collective on raw_exec: the Master succeeds, every rank prints the same
// model checksum, and every task's environment is the oracle's.
func TestXGBoostOnRawExec(t *testing.T) {
	if exec.Command("/usr/bin/python3", "-c", "import xgboost").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-xgboost is not installed for /usr/bin/python3 (CI=true)")
		}
		t.Skip("python3-xgboost not installed")
	}
	cfg := site()
	cfg.Roles = torchPath // Debian's python3-xgboost is for /usr/bin/python3
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "xgboostjob-iris.yaml"), cfg)
	res, id := run(t, p)
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	sums := map[string]bool{}
	for _, a := range allocs {
		for _, line := range strings.Split(catLogs(t, a.ID, nomad.MainTask), "\n") {
			if _, sum, ok := strings.Cut(line, " checksum "); ok && strings.HasPrefix(line, "rank ") {
				sums[sum] = true
			}
		}
	}
	if len(sums) != 1 {
		t.Errorf("model checksums %v, want one for every rank", sums)
	}
	checkEnvAgainstOracle(t, c, p, id)
	checkPrintedEnv(t, c, p, id)
}

// checkPrintedEnv: every task of a training-operator kind's example printed
// (drivertest.PrintedEnv) exactly the oracle's variables for the addresses
// and ports Nomad gave: the process's environment, not only the rendered
// file.
func checkPrintedEnv(t *testing.T, c *api.Client, p *translate.Plan, id string) {
	t.Helper()
	topo := topology(t, c, p, id)
	opts := contract.Options{User: p.User, Contracts: p.Contracts}
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		var idx int
		fmt.Sscanf(a.Name[strings.LastIndexByte(a.Name, '['):], "[%d]", &idx)
		drivertest.CheckPrintedEnv(t, p.Job, topo, opts, jobs.TaskRef{Role: role, Index: idx}, catLogs(t, a.ID, nomad.MainTask))
	}
}

// TestOtherKindsEnvOnRawExec: each training-operator kind's tasks get the
// oracle's environment from Nomad (MXJob's MX_CONFIG with a tuner key that
// needs JSON escaping, PaddleJob in parameter-server mode).
func TestOtherKindsEnvOnRawExec(t *testing.T) {
	c := agent.Client(t)
	for _, name := range []string{"env-xgboost.yaml", "env-paddle-ps.yaml", "env-jax.yaml", "env-mxnet.yaml"} {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "slurm", "testdata", name), site())
			res, id := run(t, p)
			defer c.Jobs().Deregister(id, true, nil)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			checkEnvAgainstOracle(t, c, p, id)
		})
	}
}

// TestOtherKindsEnvOnDocker: the same jobs on the Docker driver (their
// busybox image replaced by the locally built one): every task's env file
// is the oracle's for the host addresses and ports (the containers share the
// host's network), and PaddleJob's POD_IP_DUMMY reaches Master 0 alone.
func TestOtherKindsEnvOnDocker(t *testing.T) {
	needDocker(t)
	c := agent.Client(t)
	cfg := &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "busybox", Replace: torchImage}},
	}
	for _, name := range []string{"env-xgboost.yaml", "env-paddle-ps.yaml", "env-jax.yaml", "env-mxnet.yaml"} {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "slurm", "testdata", name), cfg)
			res, id := run(t, p)
			defer c.Jobs().Deregister(id, true, nil)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			job, _, err := c.Jobs().Info(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range job.TaskGroups {
				for _, task := range g.Tasks {
					if task.Name == nomad.MainTask && (task.Driver != "docker" || task.Config["image"] != torchImage) {
						t.Errorf("%s: driver %s image %v, want docker %s", *g.Name, task.Driver, task.Config["image"], torchImage)
					}
				}
			}
			checkEnvAgainstOracle(t, c, p, id)
		})
	}
}

// TestKindExamplesOnDocker: the PaddleJob, JAXJob and MXJob examples meet
// on the Docker driver (every image replaced by the locally built one,
// which has no copy of the repository: the stand-in rendezvous program is
// written into the container first). The containers share their client's
// network, so the address the contract gives a task is its own: Paddle's
// master binds POD_IP_DUMMY and reaches itself at PADDLE_MASTER, and the
// job succeeds only if every peer reached its server there.
func TestKindExamplesOnDocker(t *testing.T) {
	needDocker(t)
	c := agent.Client(t)
	cfg := &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "*", Replace: torchImage}},
	}
	for file, kind := range map[string]string{"paddlejob-collective.yaml": "paddle", "jaxjob-coordinator.yaml": "jax", "mxjob-ps.yaml": "mxnet"} {
		t.Run(file, func(t *testing.T) {
			p := loadPlan(t, drivertest.StandInImageJob(t, file, kind), cfg)
			res, id := run(t, p)
			defer c.Jobs().Deregister(id, true, nil)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			checkEnvAgainstOracle(t, c, p, id)
			checkPrintedEnv(t, c, p, id)
		})
	}
}
