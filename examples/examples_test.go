// End-to-end tests: the example jobs, read from their files unchanged, run
// by the local driver as real processes.
package examples_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// taskEnv is the tasks' base environment: /usr/bin first, so python3 is
// Debian's (the one python3-torch is installed for), as on a fresh machine.
func taskEnv(extra ...string) []string {
	env := []string{"PATH=/usr/bin:/bin:" + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

type outcome struct {
	res    *drivers.Result
	dir    string
	states map[string]completion.State // last attempt
	out    string                      // the job's prefixed output
}

// run reads file (relative to the repository root, where jobs run from, as
// `jobshift run examples/...` does) and runs it to its end.
func run(t *testing.T, file string, env []string) outcome {
	t.Helper()
	return runPlan(t, file, env, nil)
}

// runPlan is run with a look at the plan before it runs (edit may change
// it, as envdump.Wrap does).
func runPlan(t *testing.T, file string, env []string, edit func(*translate.Plan)) outcome {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("examples", file)
	job, diags := load.Load(filepath.Join(root, path), jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", file, diags)
	}
	plan, diags := translate.Build(job, nil, nil, "alice")
	if diags.HasErrors() {
		t.Fatalf("plan %s: %v", file, diags)
	}
	if edit != nil {
		edit(plan)
	}
	// The driver writes whole lines one at a time; the test reads out only
	// after the run ended.
	out := &strings.Builder{}
	d, err := local.New(local.Options{RunDir: filepath.Join(t.TempDir(), "run"), Dir: root, Grace: 5 * time.Second,
		Env: env, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	evc, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{dir: h.ID, states: map[string]completion.State{}}
	attempt := 0
	for e := range evc {
		if e.Attempt > attempt {
			attempt, o.states = e.Attempt, map[string]completion.State{}
		}
		if e.Task != nil {
			o.states[e.Task.Role+"-"+strconv.Itoa(e.Task.Index)] = e.State
		}
		if e.Final != nil {
			o.res = e.Final
		}
	}
	if o.res == nil {
		_ = d.Stop(context.Background(), h)
		t.Fatalf("%s: no result before the test timeout; output:\n%s", file, out)
	}
	if left, err := local.Leftovers(h.ID); err != nil || len(left) > 0 {
		t.Errorf("%s: processes left behind: %v (%v)", file, left, err)
	}
	t.Logf("%s output:\n%s", file, out)
	o.out = out.String()
	return o
}

func TestMeshExamplesSucceed(t *testing.T) {
	for file, want := range map[string]map[string]completion.State{
		"pai-v1-ps-worker.json": {"ps-0": completion.Stopped, "ps-1": completion.Stopped,
			"worker-0": completion.Succeeded, "worker-1": completion.Succeeded},
		"pai-v2-ddp.yaml": {"worker-0": completion.Succeeded, "worker-1": completion.Succeeded},
		// The chief decides; PS never exit and are stopped. Workers and the
		// evaluator end on their own once the mesh is complete, but may be
		// stopped first when the chief ends before them.
		"tfjob-mesh.yaml": {"chief-0": completion.Succeeded, "ps-0": completion.Stopped, "ps-1": completion.Stopped},
	} {
		t.Run(file, func(t *testing.T) {
			o := run(t, file, taskEnv())
			if o.res.Phase != completion.PhaseSucceeded || o.res.ExitCode != 0 || o.res.Attempts != 1 {
				t.Errorf("result = %+v, want succeeded, exit code 0, 1 attempt", o.res)
			}
			got := map[string]completion.State{}
			for k := range want {
				got[k] = o.states[k]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("task states (-want +got):\n%s", diff)
			}
		})
	}
}

// A worker that exits 1 fails a PAI job (minFailedTaskCount 1) and a TFJob
// (restartPolicy Never: any failed replica fails it); the job's exit code is
// the worker's own, and the other tasks are stopped.
func TestFailingWorker(t *testing.T) {
	for file, stopped := range map[string][]string{
		"pai-v1-ps-worker.json": {"ps-0", "ps-1"},
		"tfjob-mesh.yaml":       {"ps-0", "ps-1"},
	} {
		t.Run(file, func(t *testing.T) {
			o := run(t, file, taskEnv("MESH_FAIL=worker:1"))
			if o.res.Phase != completion.PhaseFailed || o.res.ExitCode != 1 || o.res.Attempts != 1 {
				t.Errorf("result = %+v, want failed with exit code 1 after 1 attempt", o.res)
			}
			if o.states["worker-1"] != completion.Failed {
				t.Errorf("worker-1 = %s, want failed", o.states["worker-1"])
			}
			for _, s := range stopped {
				if o.states[s] != completion.Stopped {
					t.Errorf("%s = %s, want stopped", s, o.states[s])
				}
			}
		})
	}
}

var checksum = regexp.MustCompile(`(?m)^rank (\d+) of (\d+) checksum (\S+)$`)

// Real training: a few DDP steps with gloo on CPU; every rank must end with
// the same parameters.
func TestTorchDDP(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PyTorch is required in CI (apt-get install python3-torch): %v", err)
		}
		t.Skipf("no PyTorch for /usr/bin/python3: %v", err)
	}
	for file, world := range map[string]int{"pai-v2-ddp-torch.yaml": 2, "pytorchjob-ddp.yaml": 3, "volcano-pytorch-ddp.yaml": 3, "trainjob-torch.yaml": 3} {
		t.Run(file, func(t *testing.T) {
			var o outcome
			if strings.HasPrefix(file, "trainjob-") {
				o = runTrainJob(t, file, taskEnv())
			} else {
				o = run(t, file, taskEnv())
			}
			if o.res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result = %+v, want succeeded", o.res)
			}
			outs, _ := filepath.Glob(filepath.Join(o.dir, "*", "attempt-1", "stdout"))
			sums := map[string]string{}
			for _, f := range outs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range checksum.FindAllStringSubmatch(string(b), -1) {
					if m[2] != strconv.Itoa(world) {
						t.Errorf("%s: world size %s, want %d", f, m[2], world)
					}
					sums[m[1]] = m[3]
				}
			}
			if len(sums) != world {
				t.Fatalf("checksums of ranks %v, want %d ranks", sums, world)
			}
			for r, s := range sums {
				if s != sums["0"] {
					t.Errorf("rank %s checksum %s differs from rank 0's %s", r, s, sums["0"])
				}
			}
		})
	}
}

// Distributed XGBoost on the xgboost-distributed runtime: the DMLC_*
// variables of the Trainer xgboost plugin bring three ranks together, and
// every rank ends with the same model.
func TestTrainJobXGBoost(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import xgboost").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("XGBoost is required in CI (apt-get install python3-xgboost): %v", err)
		}
		t.Skipf("no XGBoost for /usr/bin/python3: %v", err)
	}
	o := runTrainJob(t, "trainjob-xgboost.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	outs, _ := filepath.Glob(filepath.Join(o.dir, "*", "attempt-1", "stdout"))
	sums := map[string]string{}
	for _, f := range outs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range checksum.FindAllStringSubmatch(string(b), -1) {
			if m[2] != "3" {
				t.Errorf("%s: world size %s, want 3", f, m[2])
			}
			sums[m[1]] = m[3]
		}
	}
	if len(sums) != 3 || sums["0"] != sums["1"] || sums["0"] != sums["2"] {
		t.Fatalf("checksums by rank %v: want 3 equal ones", sums)
	}
}

// Not anchored to lines: mpirun forwards each rank's output as it comes,
// and a rank's line and its newline may arrive in two pieces with another
// rank's line between them ("...sum 21allreduce rank 1 ...").
var allreduce = regexp.MustCompile(`allreduce rank (\d+) of (\d+) sum (\d+)`)

// An MPI TrainJob (runLauncherAsNode, three nodes of two slots): the
// launcher's mpirun reaches the nodes by their pod names through the ssh
// emulation, with the hostfile and OMPI_MCA_* of Trainer's MPI plugin; six
// ranks sum 1..6. Neither the job nor the test sets an OMPI_MCA_* variable:
// each node has its pod's host name and its interface variables
// (drivers/taskns), as on Kubernetes.
func TestTrainJobMPI(t *testing.T) {
	if _, err := exec.LookPath("mpirun"); err != nil || exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run() != nil {
		t.Skip("no OpenMPI / mpi4py (apt-get install openmpi-bin python3-mpi4py)")
	}
	if _, err := exec.LookPath("sshd"); err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			t.Skip("no sshd (apt-get install openssh-server)")
		}
	}
	o := runTrainJob(t, "trainjob-mpi.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	b, err := os.ReadFile(filepath.Join(o.dir, "launcher-0", "attempt-1", "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	ranks := allreduce.FindAllStringSubmatch(string(b), -1)
	if len(ranks) != 6 {
		t.Fatalf("%d ranks reported, want 6:\n%s", len(ranks), b)
	}
	for _, m := range ranks {
		if m[2] != "6" || m[3] != "21" {
			t.Errorf("rank %s: size %s sum %s, want 6 and 21", m[1], m[2], m[3])
		}
	}
}

var datasetRows = regexp.MustCompile(`(?m)^rank (\d+) of 2 read 32 of 64 rows, sum (\d+)$`)

// A TrainJob whose runtime has a dataset initializer: the initializer step
// writes the data set to the shared /workspace volume (a hostPath), the two
// trainer nodes start once it completed and each reads its half.
func TestTrainJobDatasetInitializer(t *testing.T) {
	const host = "/tmp/jobshift-example-workspace" // the job's hostPath
	if _, err := os.Stat(host); err == nil {
		t.Skipf("%s exists: not this test's to use", host)
	}
	if err := os.Mkdir(host, 0o755); err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(host)
	o := runTrainJob(t, "trainjob-initializer.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		if strings.Contains(o.res.Reason, "namespace") {
			t.Skipf("no private mount namespace here: %s", o.res.Reason)
		}
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	sums := map[string]string{}
	outs, _ := filepath.Glob(filepath.Join(o.dir, "node-*", "*", "stdout"))
	for _, f := range outs {
		b, _ := os.ReadFile(f)
		for _, m := range datasetRows.FindAllStringSubmatch(string(b), -1) {
			sums[m[1]] = m[2]
		}
	}
	// rows i with i*i, split by rank: even rows sum 41664, odd 43680
	if sums["0"] != "41664" || sums["1"] != "43680" {
		t.Fatalf("sums by rank %v, want 0:41664 1:43680", sums)
	}
	if _, err := os.Stat(filepath.Join(host, "dataset", "rows.txt")); err != nil {
		t.Errorf("the initializer's output is not in the volume: %v", err)
	}
}
