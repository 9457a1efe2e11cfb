package multihost_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// slurmRun is one finished Slurm job.
type slurmRun struct {
	id    string
	plan  *translate.Plan
	final drivers.Result
	adir  string // the last attempt's state directory (task logs, topology)
	meta  map[string]string
}

// runSlurm submits a plan with the Slurm driver and follows it to its end.
// The state directory is a temporary directory: every host sees it (the
// shared file system a Slurm site has), so tasks on all hosts write there.
func runSlurm(t *testing.T, plan *translate.Plan, timeout time.Duration) *slurmRun {
	t.Helper()
	plan.Options["state_dir"] = t.TempDir()
	plan.Options["submit_dir"] = repoRoot()
	d := slurm.New(drivers.Config{Site: plan.Site, Options: map[string]string{"watch_interval": "500ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	r := &slurmRun{id: h.ID, plan: plan, meta: h.Meta}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := os.ReadFile(h.Meta["output"])
			t.Logf("batch output of job %s:\n%s", h.ID, out)
			_ = d.Stop(context.Background(), h)
		}
		checkSlurmJobGone(t, h.ID)
	})
	ch, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	for e := range ch {
		if e.Final != nil {
			r.final = *e.Final
		}
	}
	if r.final.Phase == "" {
		t.Fatalf("job %s: no final event within %s", h.ID, timeout)
	}
	r.adir = filepath.Join(h.Meta["state"], fmt.Sprintf("attempt-%d", max(1, r.final.Attempts)))
	return r
}

// checkSlurmJobGone: no step of the job is left (squeue lists none).
func checkSlurmJobGone(t *testing.T, id string) {
	t.Helper()
	var out []byte
	for try := 0; try < 60; try++ {
		var err error
		out, err = exec.Command("squeue", "-h", "-j", id, "-s", "-o", "%i %T").Output()
		if err != nil || len(strings.TrimSpace(string(out))) == 0 {
			return // squeue forgets a finished job (error) or lists no step
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Errorf("job %s: steps left behind:\n%s", id, out)
}

// topology reads the JS_* inputs the batch script gave the contract (the
// real nodes' NodeAddr and the job's ports), as integration/slurm does.
func (r *slurmRun) topology(t *testing.T) contract.Topology {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.adir, "topology"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		vars[k] = v
	}
	opts := contract.Options{User: r.plan.User, Contracts: r.plan.Contracts}
	topo := contract.Topology{MPIDir: vars["JS_MPI_DIR"]}
	for k, role := range r.plan.Job.Roles {
		rt := contract.RoleTopology{Name: role.Name}
		for i := 0; i < role.Instances; i++ {
			tt := contract.TaskTopology{Addr: vars[fmt.Sprintf("JS_R%d_ADDR_%d", k, i)], Ports: map[string][]int{}}
			for l, lab := range contract.PortLabels(r.plan.Job, k, opts) {
				for _, p := range strings.Split(vars[fmt.Sprintf("JS_R%d_PORT_%d_%d", k, l, i)], ",") {
					var n int
					fmt.Sscanf(p, "%d", &n)
					tt.Ports[lab.Label] = append(tt.Ports[lab.Label], n)
				}
			}
			rt.Tasks = append(rt.Tasks, tt)
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

// taskAddrs maps "role-i" to the address the contract gave that task.
func taskAddrs(job *jobs.Job, topo contract.Topology) map[string]string {
	m := map[string]string{}
	for k, role := range job.Roles {
		for i := range topo.Roles[k].Tasks {
			m[fmt.Sprintf("%s-%d", role.Name, i)] = topo.Roles[k].Tasks[i].Addr
		}
	}
	return m
}

var fileSafe = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// taskLog is one task's stdout as the batch script kept it.
func (r *slurmRun) taskLog(t *testing.T, role string, i int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.adir, fileSafe.ReplaceAllString(role, "_")+fmt.Sprintf("-%d.out", i)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSlurmExamples: the examples succeed with their tasks spread over the
// hosts; mesh.py in every task connects to every peer it was told about, so
// success means every named port was reachable from the other hosts. The
// training-operator kinds' tasks were given exactly the oracle's variables.
func TestSlurmExamples(t *testing.T) {
	c := need(t, "slurm")
	for _, f := range []string{"pai-v1-ps-worker.json", "tfjob-mesh.yaml", "pai-v2-ddp.yaml", "paddlejob-collective.yaml", "jaxjob-coordinator.yaml", "mxjob-ps.yaml"} {
		t.Run(f, func(t *testing.T) {
			plan := loadPlan(t, c, filepath.Join("examples", f))
			r := runSlurm(t, plan, 3*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
				t.Fatalf("final = %+v, want succeeded with exit code 0", r.final)
			}
			checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
			if kindExample[f] {
				r.checkPrintedEnv(t)
			}
		})
	}
}

// kindExample are the training-operator kinds' examples: their tasks print
// the operator variables they were given (drivertest.PrintedEnv).
var kindExample = map[string]bool{"paddlejob-collective.yaml": true, "jaxjob-coordinator.yaml": true, "mxjob-ps.yaml": true, "xgboostjob-iris.yaml": true}

// checkPrintedEnv: every task printed exactly the oracle's variables for
// the nodes and ports Slurm gave.
func (r *slurmRun) checkPrintedEnv(t *testing.T) {
	t.Helper()
	topo := r.topology(t)
	opts := contract.Options{User: r.plan.User, Contracts: r.plan.Contracts}
	for _, role := range r.plan.Job.Roles {
		for i := range role.Instances {
			drivertest.CheckPrintedEnv(t, r.plan.Job, topo, opts, jobs.TaskRef{Role: role.Name, Index: i}, r.taskLog(t, role.Name, i))
		}
	}
}

// TestSlurmEnvMatchesOracle: every task's real environment (env -0 in the
// task) holds exactly the oracle's variables for the hosts and ports Slurm
// gave, and each task's own address is the NodeAddr of the host it ran on.
func TestSlurmEnvMatchesOracle(t *testing.T) {
	c := need(t, "slurm")
	for _, f := range []string{"integration/slurm/testdata/env-pai.yaml", "integration/slurm/testdata/env-tf.yaml",
		"integration/slurm/testdata/env-xgboost.yaml", "integration/slurm/testdata/env-paddle-ps.yaml", "integration/slurm/testdata/env-jax.yaml", "integration/slurm/testdata/env-mxnet.yaml",
		"integration/slurm/testdata/env-trainjob.yaml"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			plan := loadPlan(t, c, f)
			r := runSlurm(t, plan, 3*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			topo := r.topology(t)
			// raw_exec and Slurm tasks run under the task view, where a
			// TrainJob's master name resolves
			opts := contract.Options{User: plan.User, Contracts: plan.Contracts, HostNames: contract.NamesRole(plan.Job) != ""}
			all, err := contract.EvalAll(plan.Job, topo, opts)
			if err != nil {
				t.Fatal(err)
			}
			for k, role := range plan.Job.Roles {
				for i := 0; i < role.Instances; i++ {
					task := fmt.Sprintf("%s-%d", role.Name, i)
					env := parseEnv0(r.taskLog(t, role.Name, i))
					want, err := contract.Eval(plan.Job, topo, jobs.TaskRef{Role: role.Name, Index: i}, opts)
					if err != nil {
						t.Fatal(err)
					}
					checkNoOtherNames(t, task, env, want, all)
					got := map[string]string{}
					for _, v := range want {
						got[v.Name] = env[v.Name]
					}
					if d := cmp.Diff(want.Map(), got); d != "" {
						t.Errorf("%s: contract (-oracle +task):\n%s", task, d)
					}
					node := env["SLURMD_NODENAME"]
					if a := topo.Roles[k].Tasks[i].Addr; c.Hosts[node] != a {
						t.Errorf("%s: contract address %s, but it ran on %s (address %s)", task, a, node, c.Hosts[node])
					}
				}
			}
			checkSpread(t, c, taskAddrs(plan.Job, topo))
		})
	}
}

// checkNoOtherNames: a task has no variable that the contract gives
// other tasks but not this one (PaddleJob's POD_IP_DUMMY is task 0's
// alone).
func checkNoOtherNames(t *testing.T, task string, env map[string]string, want contract.Env, all map[jobs.TaskRef]contract.Env) {
	t.Helper()
	mine := want.Map()
	for _, e := range all {
		for _, v := range e {
			if _, ok := mine[v.Name]; ok {
				continue
			}
			if g, ok := env[v.Name]; ok {
				t.Errorf("%s: %s=%q set, but the oracle gives it to other tasks only", task, v.Name, g)
			}
		}
	}
}

var checksumRE = regexp.MustCompile(`(?m)^rank (\d+) of (\d+) checksum (\S+)$`)

// TestSlurmDDPTorch: PyTorch DDP (gloo, CPU) trains across hosts, every rank
// ending with the same parameters.
func TestSlurmDDPTorch(t *testing.T) {
	c := need(t, "slurm")
	if !haveTorch(t) {
		t.Skip("python3-torch not installed")
	}
	// tasks inherit the environment sbatch sees: the python3 with torch first
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	// trainjob-torch.yaml: TestTrainJobExamplesSlurm
	for _, f := range []string{"pytorchjob-ddp.yaml", "pai-v2-ddp-torch.yaml"} {
		t.Run(f, func(t *testing.T) {
			plan := loadPlan(t, c, filepath.Join("examples", f))
			r := runSlurm(t, plan, 5*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			var logs strings.Builder
			for _, role := range plan.Job.Roles {
				for i := 0; i < role.Instances; i++ {
					logs.WriteString(r.taskLog(t, role.Name, i))
				}
			}
			checkChecksums(t, logs.String())
			checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
		})
	}
}

// checkChecksums: every rank printed its checksum and all are equal.
func checkChecksums(t *testing.T, logs string) {
	t.Helper()
	sums := map[string]string{}
	world := ""
	for _, m := range checksumRE.FindAllStringSubmatch(logs, -1) {
		sums[m[1]], world = m[3], m[2]
	}
	if world == "" || fmt.Sprint(len(sums)) != world {
		t.Fatalf("checksums of ranks %v, world size %q:\n%s", sums, world, logs)
	}
	for r, s := range sums {
		if s != sums["0"] {
			t.Errorf("rank %s checksum %s differs from rank 0's %s", r, s, sums["0"])
		}
	}
}

// TestSlurmXGBoost: the XGBoostJob example trains with XGBoost's collective
// across hosts, every rank ending with the same model, every process given
// exactly the oracle's variables.
func TestSlurmXGBoost(t *testing.T) {
	c := need(t, "slurm")
	if !haveModule(t, "xgboost") {
		t.Skip("python3-xgboost not installed")
	}
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	plan := loadPlan(t, c, filepath.Join("examples", "xgboostjob-iris.yaml"))
	r := runSlurm(t, plan, 5*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	var logs strings.Builder
	for _, role := range plan.Job.Roles {
		for i := 0; i < role.Instances; i++ {
			logs.WriteString(r.taskLog(t, role.Name, i))
		}
	}
	checkChecksums(t, logs.String())
	checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	r.checkPrintedEnv(t)
}
