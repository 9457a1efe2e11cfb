package multihost_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/internal/envdump"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// taskOut is a finished task's stdout.
type taskOut func(role string, i int) string

// trainJobExamples are the Kubeflow Trainer v2 examples: what each needs
// on the hosts, and what its output must show beyond success.
var trainJobExamples = []struct {
	file  string
	need  func(*testing.T) bool
	check func(*testing.T, taskOut)
}{
	{"trainjob-torch.yaml", haveTorch, func(t *testing.T, out taskOut) { checkChecksums(t, out("node", 0)+out("node", 1)+out("node", 2)) }},
	{"trainjob-xgboost.yaml", func(t *testing.T) bool { return haveModule(t, "xgboost") },
		func(t *testing.T, out taskOut) { checkChecksums(t, out("node", 0)+out("node", 1)+out("node", 2)) }},
	{"trainjob-mpi.yaml", func(t *testing.T) bool { drivertest.NeedMPI(t); return true },
		func(t *testing.T, out taskOut) { drivertest.CheckAllreduce(t, out("launcher", 0), 6) }},
	{"trainjob-initializer.yaml", func(t *testing.T) bool { return exampleWorkspace(t) },
		func(t *testing.T, out taskOut) { checkDatasetRows(t, out("node", 0)+out("node", 1)) }},
}

// workspace is the hostPath trainjob-initializer.yaml shares between its
// steps; the hosts of a cluster share this machine's /tmp.
const workspace = "/tmp/jobshift-example-workspace"

// exampleWorkspace makes the initializer example's hostPath for the test
// (jobshift does not make hostPath directories, as Kubernetes' default
// type does not): writable for the tasks' user, removed afterwards.
func exampleWorkspace(t *testing.T) bool {
	t.Helper()
	if _, err := os.Stat(workspace); err == nil {
		t.Skipf("%s exists: not this test's to use", workspace)
	}
	if err := os.Mkdir(workspace, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(workspace) })
	return os.Chmod(workspace, 0o777) == nil
}

var datasetRows = regexp.MustCompile(`(?m)^rank (\d+) of 2 read 32 of 64 rows, sum (\d+)$`)

// checkDatasetRows: each trainer node read its half of what the
// initializer step wrote (rows i with i*i: the even rows sum 41664, the
// odd 43680).
func checkDatasetRows(t *testing.T, out string) {
	t.Helper()
	sums := map[string]string{}
	for _, m := range datasetRows.FindAllStringSubmatch(out, -1) {
		sums[m[1]] = m[2]
	}
	if sums["0"] != "41664" || sums["1"] != "43680" {
		t.Errorf("sums by rank %v, want 0:41664 1:43680; output:\n%s", sums, out)
	}
	if _, err := os.Stat(filepath.Join(workspace, "dataset", "rows.txt")); err != nil {
		t.Errorf("the initializer's output is not in the volume: %v", err)
	}
}

// pathFirst is the cluster's site with /usr/bin first in the tasks' PATH:
// raw_exec tasks inherit their client's, and Debian's python3-torch,
// -xgboost and -mpi4py are for /usr/bin/python3 (a site would set this
// rule the same way).
func pathFirst(c *cluster) *cluster {
	site := *c.Site
	site.Roles = append([]siteconfig.RoleRule{{Pattern: "*", Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}}}, site.Roles...)
	return &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
}

// TestTrainJobExamplesNomad: every TrainJob example runs unchanged on the
// Nomad cluster (raw_exec), its tasks spread over the clients, to success
// with its output's proof of work; every task's command started with the
// oracle's environment for where the tasks ran.
func TestTrainJobExamplesNomad(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	for _, ex := range trainJobExamples {
		t.Run(ex.file, func(t *testing.T) {
			if !ex.need(t) {
				t.Skip("not installed for /usr/bin/python3")
			}
			plan := loadPlan(t, pathFirst(c), filepath.Join("examples", ex.file))
			dumps := t.TempDir()
			wrapped := envdump.Wrap(t, plan, dumps)
			tasks, topo := runNomadPlaced(t, c, cl, plan)
			ex.check(t, func(role string, i int) string {
				for _, nt := range tasks {
					if nt.role == role && nt.index == i {
						return catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
					}
				}
				t.Fatalf("no task %s-%d", role, i)
				return ""
			})
			opts := nomad.ContractOptions(plan)
			envdump.Check(t, plan.Job, topo, opts, dumps, wrapped, repoRoot())
			// an MPI node runs the ssh emulation's sshd, no command of
			// its own: the environment it was given
			for _, nt := range tasks {
				if !wrapped[nt.role] {
					checkRenderedEnv(t, cl, plan, topo, opts, nt)
				}
			}
		})
	}
}

// checkRenderedEnv: the environment the contract rendered for task nt
// (its local/jobshift.env) is the oracle's.
func checkRenderedEnv(t *testing.T, cl *api.Client, plan *translate.Plan, topo contract.Topology, opts contract.Options, nt nomadTask) {
	t.Helper()
	want, err := contract.Eval(plan.Job, topo, jobs.TaskRef{Role: nt.role, Index: nt.index}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := drivertest.ReadEnvFile(t, io.NopCloser(strings.NewReader(catAlloc(t, cl, nt.alloc, nomad.MainTask+"/local/jobshift.env"))))
	if d := cmp.Diff(want.Map(), got); d != "" {
		t.Errorf("%s: rendered environment (-oracle +rendered):\n%s", nt.alloc.Name, d)
	}
}

// TestTrainJobExamplesSlurm: the same on the Slurm cluster.
func TestTrainJobExamplesSlurm(t *testing.T) {
	c := need(t, "slurm")
	// tasks inherit the environment sbatch sees: the python3 of the
	// Debian packages first
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	for _, ex := range trainJobExamples {
		t.Run(ex.file, func(t *testing.T) {
			if !ex.need(t) {
				t.Skip("not installed for /usr/bin/python3")
			}
			plan := loadPlan(t, c, filepath.Join("examples", ex.file))
			dumps := t.TempDir()
			wrapped := envdump.Wrap(t, plan, dumps)
			r := runSlurm(t, plan, 5*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
				t.Fatalf("final = %+v\n%s", r.final, stderrs(r))
			}
			ex.check(t, func(role string, i int) string { return r.taskLog(t, role, i) })
			topo := r.topology(t)
			checkSpread(t, c, taskAddrs(plan.Job, topo))
			envdump.Check(t, plan.Job, topo, slurmContract(plan), dumps, wrapped, repoRoot())
		})
	}
}

// slurmContract are the contract options the Slurm driver renders with
// (drivers/slurm render.go): the MPI directory named at run time, the
// trainer role under the task view.
func slurmContract(p *translate.Plan) contract.Options {
	o := p.Compiled().ContractOn("")
	o.MPIDirRunTime = true
	o.HostNames = contract.NamesRole(p.Job) != ""
	return o
}

// stderrs is task 0's stderr of every role, for a failure message.
func stderrs(r *slurmRun) string {
	var b strings.Builder
	for _, role := range r.plan.Job.Roles {
		out, _ := os.ReadFile(filepath.Join(r.adir, role.Name+"-0.err"))
		b.WriteString(role.Name + "-0 stderr:\n" + string(out))
	}
	return b.String()
}

// trainJobDocker are the TrainJob examples as they run in containers on
// the clients' own Docker daemons: the image their runtimes' images map
// to, the job file as that image runs it (a script of the checkout sent
// with the command, the image holding no checkout), what the image must
// import, and the line that ends each task's output (the docker logger
// may still be writing it when the job has ended).
var trainJobDocker = []trainJobContainers{
	{"trainjob-torch.yaml", "ddp_train.py", torchImage, "torch", checksumRE, 3},
	{"trainjob-xgboost.yaml", "trainjob_xgb_train.py", torchImage, "xgboost", checksumRE, 3},
	{"trainjob-mpi.yaml", "", mpiImage, "mpi4py", regexp.MustCompile(`allreduce rank \d+ of 6 `), 6},
	{"trainjob-initializer.yaml", "", torchImage, "", datasetRows, 2},
}

type trainJobContainers struct {
	file, script string
	image        string
	module       string
	last         *regexp.Regexp
	lines        int
}

// TestTrainJobExamplesNomadDocker: every TrainJob example runs unchanged
// on the Nomad cluster with the docker driver, its tasks spread over the
// clients, to success with its output's proof of work; the environment
// rendered for every task (the container's) is the oracle's. The
// initializer's hostPath is a driver volume as written: the clients'
// docker plugins allow host paths (cluster.sh), and the hosts share this
// machine's /tmp.
func TestTrainJobExamplesNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	for _, ex := range trainJobExamples {
		i := slices.IndexFunc(trainJobDocker, func(d trainJobContainers) bool { return d.file == ex.file })
		t.Run(ex.file, func(t *testing.T) {
			if i < 0 {
				t.Fatalf("no row of trainJobDocker for %s", ex.file)
			}
			dk := trainJobDocker[i]
			needClientImage(t, c, dk.image, map[string]string{torchImage: "build-torch-image.sh", mpiImage: "build-mpi-image.sh"}[dk.image])
			if dk.module != "" {
				needClientModule(t, c, dk.image, dk.module)
			}
			if ex.file == "trainjob-initializer.yaml" {
				exampleWorkspace(t)
			}
			file := filepath.Join(repoRoot(), "examples", ex.file)
			if dk.script != "" {
				file = drivertest.StandInScriptJob(t, ex.file, dk.script)
			}
			dc := onDocker(c, siteconfig.ImageRule{Pattern: "pytorch/pytorch:*", Replace: dk.image}, siteconfig.ImageRule{Pattern: "ghcr.io/kubeflow/trainer/*", Replace: dk.image},
				siteconfig.ImageRule{Pattern: "python:*", Replace: dk.image}, siteconfig.ImageRule{Pattern: "jobshift/torch:*", Replace: dk.image})
			plan := loadPlan(t, dc, file)
			tasks, topo := runNomadPlaced(t, dc, cl, plan)
			for _, nt := range tasks {
				for _, task := range nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks {
					if task.Name == nomad.MainTask && task.Driver != "docker" {
						t.Errorf("%s: driver %s, want docker", nt.alloc.Name, task.Driver)
					}
				}
			}
			var all strings.Builder
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				all.Reset()
				for _, nt := range tasks {
					all.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
				}
				if len(dk.last.FindAllString(all.String(), -1)) >= dk.lines || time.Now().After(deadline) {
					break
				}
			}
			ex.check(t, func(role string, i int) string {
				for _, nt := range tasks {
					if nt.role == role && nt.index == i {
						return catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
					}
				}
				t.Fatalf("no task %s-%d", role, i)
				return ""
			})
			opts := nomad.ContractOptions(plan)
			for _, nt := range tasks {
				checkRenderedEnv(t, cl, plan, topo, opts, nt)
			}
		})
	}
}

// needClientModule: image's python3 imports module in every client's own
// dockerd (an image of an older recipe of its build script may not).
func needClientModule(t *testing.T, c *cluster, image, module string) {
	t.Helper()
	for name := range c.Hosts {
		sock := filepath.Join(filepath.Dir(c.Env["JOBSHIFT_CONFIG"]), name, "d", "docker.sock")
		if err := exec.Command("docker", "--host", "unix://"+sock, "run", "--rm", "--network", "none", image, "python3", "-c", "import "+module).Run(); err != nil {
			msg := fmt.Sprintf("%s's dockerd (%s): %s has no python3 module %s: rebuild it (integration/nomad/build-*-image.sh tag by recipe), then cluster.sh down/up nomad", name, sock, image, module)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}
