package slurm_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// volcanoRuns loads a Volcano policy job of examples/testdata whose tasks
// count their runs in a directory ($VC_RUNS, given to every role as the
// test's environment is to the local driver's tasks).
func volcanoRuns(t *testing.T, file string) (string, func() string) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil { // the tasks' user may differ
		t.Fatal(err)
	}
	return dir, func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "count"))
		return strings.TrimSpace(string(b))
	}
}

func volcanoSubmit(t *testing.T, file, dir string) *run {
	plan := loadPlan(t, filepath.Join("examples", "testdata", file), nil)
	for _, r := range plan.Job.Roles {
		r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
	}
	return submit(t, plan, 5*time.Minute)
}

// Volcano's policies on Slurm, as examples/volcano_test.go runs them
// locally (pkg/controllers/job/state/running.go, restarting.go,
// job_controller_util.go applyPolicies @v1.16.0-alpha.1): exitCode 3 →
// RestartJob within maxRetry (the batch script requeues the job),
// maxRetry exhausted, TaskCompleted → CompleteJob with never-ending
// workers.
func TestVolcanoPoliciesOnSlurm(t *testing.T) {
	needCluster(t)
	t.Run("exitcode-restartjob", func(t *testing.T) {
		dir, count := volcanoRuns(t, "volcano-exitcode-restartjob.yaml")
		r := volcanoSubmit(t, "volcano-exitcode-restartjob.yaml", dir)
		if r.final.Phase != completion.PhaseSucceeded || r.final.Attempts != 3 {
			t.Errorf("result = %+v, want succeeded after 3 attempts", r.final)
		}
		if n := count(); n != "3" {
			t.Errorf("runs = %q, want 3", n)
		}
	})
	t.Run("maxretry", func(t *testing.T) {
		dir, _ := volcanoRuns(t, "volcano-maxretry.yaml")
		r := volcanoSubmit(t, "volcano-maxretry.yaml", dir)
		if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 3 || r.final.Attempts != 2 {
			t.Errorf("result = %+v, want failed with exit code 3 after 2 attempts", r.final)
		}
	})
	t.Run("restartpod", func(t *testing.T) {
		// in place, inside the task (restart.sh): one attempt
		dir, count := volcanoRuns(t, "volcano-restartpod.yaml")
		r := volcanoSubmit(t, "volcano-restartpod.yaml", dir)
		if r.final.Phase != completion.PhaseSucceeded || r.final.Attempts != 1 {
			t.Errorf("result = %+v, want succeeded in 1 attempt", r.final)
		}
		if n := count(); n != "3" {
			t.Errorf("runs = %q, want 3", n)
		}
	})
	t.Run("taskcompleted", func(t *testing.T) {
		dir, _ := volcanoRuns(t, "volcano-taskcompleted.yaml")
		r := volcanoSubmit(t, "volcano-taskcompleted.yaml", dir)
		if r.final.Phase != completion.PhaseSucceeded || r.final.Attempts != 1 {
			t.Errorf("result = %+v, want succeeded after 1 attempt", r.final)
		}
		states := r.taskStates()
		for _, w := range []string{"worker-0", "worker-1"} {
			if states[w] != completion.Stopped {
				t.Errorf("%s = %s, want stopped", w, states[w])
			}
		}
	})
}

// TestVolcanoSSHFilesOnSlurm: the ssh plugin's files are at /root/.ssh in
// every task's view: the master logs in to every pod its config names
// with the plugin's key.
func TestVolcanoSSHFilesOnSlurm(t *testing.T) {
	needCluster(t)
	r := submit(t, loadPlan(t, filepath.Join("examples", "testdata", "volcano-ssh-files.yaml"), nil), 5*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v", r.final)
	}
	outs, _ := filepath.Glob(filepath.Join(r.state, "attempt-1", "master-*.out"))
	out := ""
	for _, o := range outs {
		b, _ := os.ReadFile(o)
		out += string(b)
	}
	for _, h := range []string{"vc-ssh-master-0", "vc-ssh-worker-0", "vc-ssh-worker-1"} {
		if !strings.Contains(out, "reached "+h+"\n") {
			t.Errorf("the master did not reach %s:\n%s", h, out)
		}
	}
}

// TestVolcanoTFShapeOneHost: Volcano's TensorFlow shape (peers from
// /etc/volcano/*.host with the job's own port 2222, as each pod had its own
// network) on the one-host cluster, unchanged: every task is at the one
// address, so each gets a network of its own there (batch.sh
// js_check_hosts, drivers/taskns Net), every worker reaches the ps and the
// other worker by name (examples/mesh.py), and nothing of the tasks'
// networks is left on the host.
func TestVolcanoTFShapeOneHost(t *testing.T) {
	needCluster(t)
	r := submit(t, loadPlan(t, filepath.Join("examples", "volcano-tf-shape.yaml"), nil), 3*time.Minute)
	batch, _ := os.ReadFile(r.h.Meta["output"])
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v, want succeeded; batch output:\n%s", r.final, batch)
	}
	if !strings.Contains(string(batch), "each gets a network of its own there") {
		t.Errorf("the batch output does not say the tasks got their own networks:\n%s", batch)
	}
	for w, want := range map[string]string{"worker-0": "worker:0: mesh ok: reached ps:0,worker:1; sum=1030", "worker-1": "worker:1: mesh ok: reached ps:0,worker:0; sum=1030"} {
		out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", w+".out"))
		if !strings.Contains(string(out), want) {
			errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", w+".err"))
			t.Errorf("%s did not print %q:\n%s\n%s", w, want, out, errOut)
		}
	}
	drivertest.NoTaskNetLeft(t)
}

// TestVolcanoTFRetryOneHost: Volcano's TensorFlow shape on the one-host
// cluster retried as a whole (worker 0 exits 3 on its first run,
// RestartJob: examples/testdata/volcano-tf-restartjob.yaml; the batch
// script requeues the job): the second attempt trains, each attempt's
// tasks on a link of their own (keyed by the attempt's state directory:
// a requeued attempt's tasks never join a link the last's may still
// hold), none left afterwards.
func TestVolcanoTFRetryOneHost(t *testing.T) {
	needCluster(t)
	dir, _ := volcanoRuns(t, "volcano-tf-restartjob.yaml")
	seen := drivertest.SeeTaskNets(t)
	r := volcanoSubmit(t, "volcano-tf-restartjob.yaml", dir)
	anchors := seen()
	if r.final.Phase != completion.PhaseSucceeded || r.final.Attempts != 2 {
		batch, _ := os.ReadFile(r.h.Meta["output"])
		t.Fatalf("result %+v, want succeeded after 2 attempts; batch output:\n%s", r.final, batch)
	}
	for w, want := range map[string]string{"worker-0": "worker:0: mesh ok: reached ps:0,worker:1; sum=1030", "worker-1": "worker:1: mesh ok: reached ps:0,worker:0; sum=1030"} {
		if out, _ := os.ReadFile(filepath.Join(r.state, "attempt-2", w+".out")); !strings.Contains(string(out), want) {
			t.Errorf("%s did not print %q in attempt 2:\n%s", w, want, out)
		}
	}
	for _, a := range []string{"attempt-1", "attempt-2"} {
		if k := filepath.Join(r.state, a); !anchors[drivertest.TaskNetAnchor(t, k)] {
			t.Errorf("no link of key %s seen on the host: %v", k, anchors)
		}
	}
	drivertest.NoTaskNetLeft(t)
}

// TestVolcanoExamplesOnSlurm: Volcano's MPI example (the launcher's host
// list from /etc/volcano/mpiworker.host, mpiexec over the ssh plugin: 2
// ranks sum 3) and its PyTorch example (the pytorch plugin's variables, a
// gloo DDP step: every rank ends with the same parameters) on the
// one-host cluster, unchanged.
func TestVolcanoExamplesOnSlurm(t *testing.T) {
	needCluster(t)
	t.Run("volcano-mpi", func(t *testing.T) {
		drivertest.NeedMPI(t)
		r := submit(t, loadPlan(t, filepath.Join("examples", "volcano-mpi.yaml"), nil), 4*time.Minute)
		out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "mpimaster-0.out"))
		if r.final.Phase != completion.PhaseSucceeded {
			errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "mpimaster-0.err"))
			t.Fatalf("final %+v; master output:\n%s\n%s", r.final, out, errOut)
		}
		drivertest.CheckAllreduce(t, string(out), 2)
	})
	t.Run("volcano-pytorch-ddp", func(t *testing.T) {
		if exec.Command("/usr/bin/python3", "-c", "import torch").Run() != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("python3-torch is not installed for /usr/bin/python3")
			}
			t.Skip("python3-torch not installed")
		}
		t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH")) // the python3 with torch first
		r := submit(t, loadPlan(t, filepath.Join("examples", "volcano-pytorch-ddp.yaml"), nil), 5*time.Minute)
		if r.final.Phase != completion.PhaseSucceeded {
			t.Fatalf("final = %+v", r.final)
		}
		sums := map[string]bool{}
		for _, f := range []string{"master-0", "worker-0", "worker-1"} {
			b, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", f+".out"))
			m := regexp.MustCompile(`rank \d of 3 checksum (\S+)`).FindSubmatch(b)
			if m == nil {
				t.Errorf("%s printed no checksum:\n%s", f, b)
				continue
			}
			sums[string(m[1])] = true
		}
		if len(sums) != 1 {
			t.Errorf("checksums %v, want one for all three ranks", sums)
		}
	})
}

// TestVolcanoPolicyTableOnSlurm runs the rows of examples/volcano_test.go
// TestVolcanoPolicies (examples/testdata/volcano-policy-*.yaml, each with
// its "# want:" line written from upstream's rule) on the cluster.
func TestVolcanoPolicyTableOnSlurm(t *testing.T) {
	needCluster(t)
	for _, w := range drivertest.VolcanoWants(t, filepath.Join(repoRoot(), "examples", "testdata")) {
		t.Run(w.File, func(t *testing.T) {
			dir, count := volcanoRuns(t, w.File)
			r := volcanoSubmit(t, w.File, dir)
			if string(r.final.Phase) != w.Phase || r.final.ExitCode != w.Exit || r.final.Attempts != w.Attempts {
				t.Errorf("result = %+v, want %s, exit code %d, %d attempts", r.final, w.Phase, w.Exit, w.Attempts)
			}
			if n := count(); w.Runs != "" && n != w.Runs {
				t.Errorf("runs = %q, want %s", n, w.Runs)
			}
			states := r.taskStates()
			for _, s := range w.Stopped {
				if states[s] != completion.Stopped {
					t.Errorf("%s = %s, want stopped", s, states[s])
				}
			}
		})
	}
}

// TestVolcanoNodeFieldsOnSlurm: spec.nodeName is the Slurm node the task
// ran on and status.hostIP(s) that node's NodeAddr, as scontrol reports
// them.
func TestVolcanoNodeFieldsOnSlurm(t *testing.T) {
	needCluster(t)
	out, err := exec.Command("scontrol", "show", "node", "-o").Output()
	if err != nil {
		t.Fatal(err)
	}
	addrOf := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, _, _ := strings.Cut(strings.TrimPrefix(l, "NodeName="), " ")
		if _, a, ok := strings.Cut(l, " NodeAddr="); ok {
			addrOf[name], _, _ = strings.Cut(a, " ")
		}
	}
	r := submit(t, loadPlan(t, filepath.Join("examples", "testdata", "volcano-node-fields.yaml"), nil), 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v", r.final)
	}
	for _, task := range []string{"worker-0", "worker-1"} {
		b, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", task+".out"))
		env := drivertest.PrintedEnv(string(b))
		n := env["MY_NODE_NAME"]
		if a, ok := addrOf[n]; !ok || env["MY_HOST_IP"] != a || env["MY_HOST_IPS"] != a {
			t.Errorf("%s: node %q, host IP %q, IPs %q; want a node of %v and its NodeAddr", task, n, env["MY_HOST_IP"], env["MY_HOST_IPS"], addrOf)
		}
	}
}
