package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// stepStates maps step name (the role, srun --job-name) → sacct state.
func stepStates(t *testing.T, id string, nsteps int) map[string]string {
	t.Helper()
	m, prev := map[string]string{}, ""
	for try := 0; try < 40; try++ {
		out, err := exec.Command("sacct", "-j", id, "--whole-hetjob=yes", "-P", "-n", "--format=JobID,JobName,State").Output()
		if err != nil {
			t.Fatalf("sacct: %v", err)
		}
		m = map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(l, "|")
			if len(f) < 3 {
				continue
			}
			st, _, _ := strings.Cut(f[2], " ")
			switch {
			case !strings.Contains(f[0], "."):
				if !strings.Contains(f[0], "+") || strings.HasSuffix(f[0], "+0") {
					m["job"] = st
				}
			case !strings.HasSuffix(f[0], ".batch") && !strings.HasSuffix(f[0], ".extern"):
				m[f[1]] = st
			}
		}
		// sacct lags: wait until every step is there and two reads agree
		if cur := fmt.Sprint(m); len(m) >= nsteps+1 && cur == prev {
			break
		} else {
			prev = cur
		}
		time.Sleep(time.Second)
	}
	return m
}

// printsEnv are the examples whose tasks print their operator variables.
var printsEnv = map[string]bool{"examples/paddlejob-collective.yaml": true, "examples/mxjob-ps.yaml": true, "examples/jaxjob-coordinator.yaml": true}

// TestPSWorkerJobs: the PAI v1 ps×2/worker×2 job and the TFJob with chief,
// ps, worker and evaluator succeed in both layouts; the parameter-server
// steps end CANCELLED (stopped with SIGTERM) while the job ends COMPLETED;
// the PaddleJob, MXJob and JAXJob tasks were given the oracle's variables.
func TestPSWorkerJobs(t *testing.T) {
	needCluster(t)
	cases := map[string]struct {
		file   string
		layout string
		want   map[string]string // sacct: job and step (role) states
		either []string          // roles the chief's success may stop or not
	}{
		"pai-v1 het":    {"examples/pai-v1-ps-worker.json", "het", map[string]string{"job": "COMPLETED", "ps": "CANCELLED", "worker": "COMPLETED"}, nil},
		"pai-v1 packed": {"examples/pai-v1-ps-worker.json", "packed", map[string]string{"job": "COMPLETED", "ps": "CANCELLED", "worker": "COMPLETED"}, nil},
		"tfjob het": {"examples/tfjob-mesh.yaml", "het",
			map[string]string{"job": "COMPLETED", "ps": "CANCELLED", "chief": "COMPLETED"}, []string{"worker", "evaluator"}},
		"tfjob packed": {"examples/tfjob-mesh.yaml", "packed",
			map[string]string{"job": "COMPLETED", "ps": "CANCELLED", "chief": "COMPLETED"}, []string{"worker", "evaluator"}},
		"pai-v2 single":    {"examples/pai-v2-ddp.yaml", "", map[string]string{"job": "COMPLETED", "worker": "COMPLETED"}, nil},
		"paddlejob single": {"examples/paddlejob-collective.yaml", "", map[string]string{"job": "COMPLETED", "worker": "COMPLETED"}, nil},
		"mxjob packed": {"examples/mxjob-ps.yaml", "packed",
			map[string]string{"job": "COMPLETED", "scheduler": "COMPLETED"}, []string{"server", "worker"}},
		"jaxjob single": {"examples/jaxjob-coordinator.yaml", "", map[string]string{"job": "COMPLETED", "worker": "COMPLETED"}, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			plan := loadPlan(t, tc.file, map[string]string{"layout": tc.layout})
			r := submit(t, plan, 3*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
				t.Fatalf("final = %+v, want succeeded with exit code 0", r.final)
			}
			got := stepStates(t, r.h.ID, len(tc.want)-1+len(tc.either))
			for _, role := range tc.either {
				// the chief decided: these ended on their own or were stopped
				if st := got[role]; st == "COMPLETED" || st == "CANCELLED" {
					delete(got, role)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("sacct states of job %s (-want +got):\n%s", r.h.ID, d)
			}
			if printsEnv[tc.file] {
				checkPrintedEnv(t, r)
			}
			for task, st := range r.taskStates() {
				want := completion.Succeeded
				if strings.HasPrefix(task, "ps-") {
					want = completion.Stopped
				}
				role, _, _ := strings.Cut(task, "-")
				if st == completion.Stopped && contains(tc.either, role) {
					continue
				}
				if st != want {
					t.Errorf("task %s ended %s, want %s", task, st, want)
				}
			}
		})
	}
}

// readTopology parses the JS_* inputs the batch script gave the contract.
func readTopology(t *testing.T, job *jobs.Job, opts contract.Options, adir string) contract.Topology {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(adir, "topology"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		vars[k] = v
	}
	topo := contract.Topology{MPIDir: vars["JS_MPI_DIR"]}
	for k, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := 0; i < r.Instances; i++ {
			tt := contract.TaskTopology{Addr: vars[fmt.Sprintf("JS_R%d_ADDR_%d", k, i)], Ports: map[string][]int{}}
			for l, lab := range contract.PortLabels(job, k, opts) {
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

// nodeAddr is a node's NodeAddr as Slurm reports it.
func nodeAddr(t *testing.T, node string) string {
	out, err := exec.Command("scontrol", "show", "node", "-o", node).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`NodeAddr=(\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no NodeAddr for %s", node)
	}
	return m[1]
}

// TestEnvMatchesOracle: every task's real environment holds exactly the
// contract oracle's variables for the allocation Slurm gave (and the role's
// own env byte for byte), no jobshift internals, an empty
// CUDA_VISIBLE_DEVICES on CPU-only roles; each task's address is the
// NodeAddr of the node it ran on and no two ports of the job are equal.
func TestEnvMatchesOracle(t *testing.T) {
	needCluster(t)
	cases := map[string]struct{ file, layout string }{
		"pai het":    {"integration/slurm/testdata/env-pai.yaml", "het"},
		"pai packed": {"integration/slurm/testdata/env-pai.yaml", "packed"},
		"tf packed":  {"integration/slurm/testdata/env-tf.yaml", "packed"},
		"tf het":     {"integration/slurm/testdata/env-tf.yaml", "het"},
		// generations: the oracle gives each one's variables
		"tf v1alpha2 packed":     {"integration/slurm/testdata/env-tf-v1alpha2.yaml", "packed"},
		"pytorch v1beta1 packed": {"integration/slurm/testdata/env-torch-v1beta1.yaml", "packed"},
		"pytorch v1alpha1 het":   {"integration/slurm/testdata/env-torch-v1alpha1.yaml", "het"},
		// the other training-operator kinds
		"xgboost het":      {"integration/slurm/testdata/env-xgboost.yaml", "het"},
		"paddle ps packed": {"integration/slurm/testdata/env-paddle-ps.yaml", "packed"},
		"jax single":       {"integration/slurm/testdata/env-jax.yaml", ""},
		"mxnet het":        {"integration/slurm/testdata/env-mxnet.yaml", "het"},
		// Trainer v2: the master by the plugins' name, resolved by the view
		"trainjob torch": {"integration/slurm/testdata/env-trainjob.yaml", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			plan := loadPlan(t, tc.file, map[string]string{"layout": tc.layout})
			r := submit(t, plan, 2*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			adir := filepath.Join(r.state, "attempt-1")
			// the tasks run as plain processes under the task view, where
			// a TrainJob's master name resolves
			opts := contract.Options{User: plan.User, Contracts: plan.Contracts, HostNames: contract.NamesRole(r.job) != ""}
			topo := readTopology(t, r.job, opts, adir)
			ports := map[int]string{}
			for k, role := range r.job.Roles {
				for i := 0; i < role.Instances; i++ {
					task := fmt.Sprintf("%s-%d", role.Name, i)
					raw, err := os.ReadFile(filepath.Join(adir, regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(role.Name, "_")+fmt.Sprintf("-%d.out", i)))
					if err != nil {
						t.Fatal(err)
					}
					env := map[string]string{}
					for _, kv := range strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
						k, v, _ := strings.Cut(kv, "=")
						env[k] = v
					}
					want, err := contract.Eval(r.job, topo, jobs.TaskRef{Role: role.Name, Index: i}, opts)
					if err != nil {
						t.Fatal(err)
					}
					got := map[string]string{}
					for _, v := range want {
						got[v.Name] = env[v.Name]
					}
					if d := cmp.Diff(want.Map(), got); d != "" {
						t.Errorf("%s: contract (-oracle +task):\n%s", task, d)
					}
					if contract.NeedsWorkDir(r.job, opts) && env["PAI_WORK_DIR"] != repoRoot() {
						t.Errorf("%s: PAI_WORK_DIR=%q, want %q", task, env["PAI_WORK_DIR"], repoRoot())
					}
					for _, e := range role.Env {
						if env[e.Name] != e.Value {
							t.Errorf("%s: %s=%q, want %q", task, e.Name, env[e.Name], e.Value)
						}
					}
					if v, ok := env["CUDA_VISIBLE_DEVICES"]; role.Resources.GPU == 0 && (!ok || v != "") {
						t.Errorf("%s: CPU-only role: CUDA_VISIBLE_DEVICES=%q (set %v), want set and empty", task, v, ok)
					}
					for name := range env {
						if strings.HasPrefix(name, "_jsh_") || strings.HasPrefix(name, "JS_") {
							t.Errorf("%s: jobshift internal %s leaked into the task", task, name)
						}
					}
					tt := topo.Roles[k].Tasks[i]
					if a := nodeAddr(t, env["SLURMD_NODENAME"]); tt.Addr != a {
						t.Errorf("%s: address %s, but it ran on %s whose NodeAddr is %s", task, tt.Addr, env["SLURMD_NODENAME"], a)
					}
					for l, ps := range tt.Ports {
						for _, p := range ps {
							if other, dup := ports[p]; dup {
								t.Errorf("port %d of %s/%s also belongs to %s", p, task, l, other)
							}
							ports[p] = task + "/" + l
						}
					}
				}
			}
		})
	}
}

// TestFailingWorker: a worker exiting 3 fails the job (minFailedInstances
// 1) with exit code 3; the other tasks are stopped.
func TestFailingWorker(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/fail.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 3 {
		t.Fatalf("final = %+v, want failed with exit code 3", r.final)
	}
	want := map[string]completion.State{"ps-0": completion.Stopped, "worker-0": completion.Stopped, "worker-1": completion.Failed}
	if d := cmp.Diff(want, r.taskStates()); d != "" {
		t.Errorf("task states (-want +got):\n%s", d)
	}
	if got := stepStates(t, r.h.ID, 2)["job"]; got != "FAILED" {
		t.Errorf("sacct job state %s, want FAILED", got)
	}
	out, _ := exec.Command("scontrol", "show", "job", "-o", r.h.ID).Output()
	if !strings.Contains(string(out), "ExitCode=3:0") {
		t.Errorf("scontrol: want ExitCode=3:0 in %s", out)
	}
}

// TestRetries: jobRetryCount 2 requeues the job exactly twice.
func TestRetries(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/retry.yaml", nil)
	r := submit(t, plan, 4*time.Minute)
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 1 || r.final.Attempts != 3 {
		t.Fatalf("final = %+v, want failed, exit code 1, 3 attempts", r.final)
	}
	out, _ := exec.Command("scontrol", "show", "job", "-o", r.h.ID).Output()
	if !strings.Contains(string(out), "Restarts=2 ") {
		t.Errorf("scontrol: want Restarts=2 in %s", out)
	}
	dirs, _ := filepath.Glob(filepath.Join(r.state, "attempt-*"))
	sort.Strings(dirs)
	var names []string
	for _, d := range dirs {
		names = append(names, filepath.Base(d))
	}
	if d := cmp.Diff([]string{"attempt-1", "attempt-2", "attempt-3"}, names); d != "" {
		t.Errorf("attempts (-want +got):\n%s", d)
	}
}

// TestGPUBinding: --gpus-per-task gives each worker its own GPUs; the
// CPU-only ps sees none.
func TestGPUBinding(t *testing.T) {
	needCluster(t)
	for _, layout := range []string{"het", "packed"} {
		t.Run(layout, func(t *testing.T) {
			plan := loadPlan(t, "integration/slurm/testdata/gpu.yaml", map[string]string{"layout": layout})
			r := submit(t, plan, 2*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			adir := filepath.Join(r.state, "attempt-1")
			seen := map[string]string{}
			re := regexp.MustCompile(`CUDA=\[([^\]]*)\] node=(\S+)`)
			for _, task := range []string{"ps-0", "worker-0", "worker-1"} {
				b, _ := os.ReadFile(filepath.Join(adir, task+".out"))
				m := re.FindStringSubmatch(string(b))
				if m == nil {
					t.Fatalf("%s printed %q", task, b)
				}
				if task == "ps-0" {
					if m[1] != "" {
						t.Errorf("ps sees GPUs %q, want none", m[1])
					}
					continue
				}
				if len(strings.Split(m[1], ",")) != 2 {
					t.Errorf("%s sees GPUs %q, want 2", task, m[1])
				}
				key := m[2] + "/" + m[1]
				if other, dup := seen[key]; dup {
					t.Errorf("%s and %s share GPUs %s", task, other, key)
				}
				seen[key] = task
			}
		})
	}
}

// TestImpossibleGPU: more GPUs per task than any node has is refused at
// submit, with the reason and the request named.
func TestImpossibleGPU(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/gpu-impossible.yaml", nil)
	d := slurm.New(drivers.Config{})
	_, err := d.Submit(context.Background(), plan)
	if !errors.Is(err, slurm.ErrSubmit) {
		t.Fatalf("Submit: %v, want ErrSubmit", err)
	}
	for _, want := range []string{"Requested node configuration is not available", "worker: 9 GPU(s) per task"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestDDPTorch trains for real with PyTorch DDP (gloo, CPU) across Slurm
// tasks: the PyTorchJob and the OpenPAI DDP example.
func TestDDPTorch(t *testing.T) {
	needCluster(t)
	if exec.Command("/usr/bin/python3", "-c", "import torch").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3-torch is not installed for /usr/bin/python3")
		}
		t.Skip("python3-torch not installed")
	}
	// tasks inherit the environment sbatch sees: the python3 with torch first
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
	for _, f := range []string{"examples/pytorchjob-ddp.yaml", "examples/pai-v2-ddp-torch.yaml", "examples/trainjob-torch.yaml"} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			plan := loadPlan(t, f, nil)
			check := func(*run) {}
			if strings.Contains(f, "trainjob") {
				check = envDumped(t, plan)
			}
			r := submit(t, plan, 5*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			check(r)
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSecrets: PAI v2 secrets reach the task's command but never the batch
// script; the companion file is 0600.
func TestSecrets(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/secrets.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	for i := 0; i < 2; i++ {
		b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", fmt.Sprintf("worker-%d.out", i)))
		if err != nil {
			t.Fatal(err)
		}
		if want := "token=s3cr3t-V4lue nested=n3sted\n"; string(b) != want {
			t.Errorf("worker-%d printed %q, want %q", i, b, want)
		}
	}
	script, err := os.ReadFile(r.h.Meta["script"])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(script), "s3cr3t") || strings.Contains(string(script), "n3sted") {
		t.Error("the batch script contains a secret value")
	}
	// no copy of the values outlives the job on the shared file system
	// (the file is written 0600: drivers/slurm TestSecretsStayOut)
	for _, f := range []string{r.h.Meta["script"] + ".secrets", filepath.Join(r.state, "secrets")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s outlived the job", f)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(r.state, "attempt-1", "user-*.sh")); len(left) > 0 {
		t.Errorf("command files filled in with secrets outlived the job: %v", left)
	}
}

// TestDeadline: activeDeadlineSeconds ends the job as failed with 124 and
// stops the tasks; Slurm's --time is only the backstop.
func TestDeadline(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/deadline.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	// the script's verdict (Slurm's own limit would read "slurm: TIMEOUT")
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 124 || !strings.Contains(r.final.Reason, "DeadlineExceeded") {
		t.Fatalf("final = %+v, want failed, 124, DeadlineExceeded", r.final)
	}
	script, _ := os.ReadFile(r.h.Meta["script"])
	if !strings.Contains(string(script), "#SBATCH --time=3\n") {
		t.Error("want the backstop --time=3 (0 min deadline + 3)")
	}
}

// TestStatusAndLogsByID: a handle holding only the job id (jobshift
// status/logs from another process) finds the job's state and logs.
func TestStatusAndLogsByID(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/secrets.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	d := slurm.New(drivers.Config{})
	bare := drivers.Handle{Driver: "slurm", ID: r.h.ID}
	ch, err := d.Watch(context.Background(), bare)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range ch {
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil || *final != r.final {
		t.Errorf("status by id: %+v, want %+v", final, r.final)
	}
	rc, err := d.Logs(context.Background(), bare, drivers.LogOptions{Task: &jobs.TaskRef{Role: "worker", Index: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	if want := "token=s3cr3t-V4lue nested=n3sted\n"; string(b) != want {
		t.Errorf("logs worker-1 = %q, want %q", b, want)
	}
	if _, err := d.Logs(context.Background(), bare, drivers.LogOptions{Task: &jobs.TaskRef{Role: "nope", Index: 0}}); !errors.Is(err, drivers.ErrNotFound) {
		t.Errorf("logs of an unknown role: %v, want ErrNotFound", err)
	}
}

// TestV1alpha1Chief: a kubeflow.org/v1alpha1 TFJob ends with its chief:
// the master's exit 1 fails the job at once although its restartPolicy is
// OnFailure, and the worker's earlier exit 2 decided nothing (v1.9 rules
// would have failed the job with the worker's 2, and restarted the master).
func TestV1alpha1Chief(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/v1alpha1-chief.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 1 {
		t.Fatalf("final = %+v, want failed with the master's exit code 1", r.final)
	}
	want := map[string]completion.State{"master-0": completion.Failed, "worker-0": completion.Failed}
	if d := cmp.Diff(want, r.taskStates()); d != "" {
		t.Errorf("task states (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(r.state, "attempt-1", "restarts.job")); err == nil {
		t.Errorf("a task was restarted; the v1alpha1 chief's exit 1 is permanent")
	}
}

// TestRestartInPlace: restartPolicy OnFailure restarts a failed task inside
// its step; the job succeeds and every task was restarted once.
func TestRestartInPlace(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/restart.yaml", nil)
	r := submit(t, plan, 2*time.Minute)
	t.Cleanup(func() { // the tasks' first-run markers
		ms, _ := filepath.Glob("/tmp/jobshift-restart-" + r.h.ID + "-*")
		for _, m := range ms {
			os.Remove(m)
		}
	})
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", "restarts.job"))
	if err != nil || strings.TrimSpace(string(b)) != "3" {
		t.Errorf("restarts.job = %q (%v), want 3 counted restarts", b, err)
	}
	for _, f := range []string{"restarted.0.0", "restarted.1.0", "restarted.1.1"} {
		if b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", f)); err != nil || string(b) != "1\n" {
			t.Errorf("%s = %q (%v), want one restart after exit code 1", f, b, err)
		}
	}
}

// TestRestartBackoff: a crash-looping task is restarted in place after the
// kubelet's back-off, scaled down (restart_backoff 300ms: 0, 300ms, 600ms,
// 1.2s). The task's recorded run start/end times (runs.R.I, milliseconds)
// show each wait was applied: lower bounds only, a loaded cluster may be
// slower, never faster.
func TestRestartBackoff(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/slurm/testdata/crashloop.yaml", map[string]string{"restart_backoff": "300ms"})
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 3 {
		t.Fatalf("final = %+v, want failed with 3 (backoffLimit 5)", r.final)
	}
	b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", "runs.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	var runs [][3]int64
	for _, l := range lines(string(b)) {
		var x [3]int64
		if _, err := fmt.Sscanf(l, "%d %d %d", &x[0], &x[1], &x[2]); err != nil {
			t.Fatalf("runs.0.0 line %q: %v", l, err)
		}
		runs = append(runs, x)
	}
	want := []time.Duration{0, 300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond}
	if len(runs) != len(want)+1 {
		t.Fatalf("%d runs recorded, want %d:\n%s", len(runs), len(want)+1, b)
	}
	for i, w := range want {
		gap := time.Duration(runs[i+1][0]-runs[i][1]) * time.Millisecond
		t.Logf("restart %d: back-off %s, measured %s", i+1, w, gap)
		if gap < w {
			t.Errorf("restart %d started %s after the crash, before its back-off of %s", i+1, gap, w)
		}
		if runs[i][2] != 3 {
			t.Errorf("run %d exited %d, want 3", i, runs[i][2])
		}
	}
	if gap0, gap3 := runs[1][0]-runs[0][1], runs[4][0]-runs[3][1]; gap3 <= gap0 {
		t.Errorf("the last wait (%d ms) is not longer than the first (%d ms): no back-off", gap3, gap0)
	}
}

func lines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestUAIParameterServers: with the uai contract every node also runs a
// parameter-server process (same command, TF_CONFIG of type ps) beside its
// training task, as UCloud UAI Train did.
func TestUAIParameterServers(t *testing.T) {
	needCluster(t)
	out := t.TempDir()
	job := fmt.Sprintf(`protocolVersion: 2
name: uai
type: job
prerequisites:
  - {type: dockerimage, name: img, uri: busybox}
taskRoles:
  worker:
    instances: 2
    completion: {minFailedInstances: 1}
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0, ports: {uai: 2}}
    commands:
      - printf '%%s\n' "$TF_CONFIG" >> %s/tf.$PAI_TASK_INDEX
      - sleep 2
`, out)
	path := filepath.Join(out, "uai.yaml")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	j, diags := load.Load(path, jobs.ReadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(j, &siteconfig.Config{}, []string{"pai", "uai"}, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{"state_dir": t.TempDir(), "submit_dir": out}
	r := submit(t, plan, 2*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	for i := 0; i < 2; i++ {
		b, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("tf.%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(ls) != 2 || ls[0] == ls[1] {
			t.Fatalf("task %d: want two different TF_CONFIGs (training task and ps), got %q", i, ls)
		}
		if !strings.Contains(ls[0]+ls[1], `"ps"`) {
			t.Errorf("task %d: no ps TF_CONFIG among %q", i, ls)
		}
	}
}
