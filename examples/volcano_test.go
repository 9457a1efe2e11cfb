package examples_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// exitCode 3 → RestartJob (applyPolicies; running.go RetryCount++;
// restarting.go fails at RetryCount ≥ maxRetry, @v1.16.0-alpha.1): two
// restarts and a success within maxRetry 3; with maxRetry 2 the second
// RestartJob is refused and the job fails with the task's code.
func TestVolcanoRestartJob(t *testing.T) {
	runs := t.TempDir()
	o := run(t, "testdata/volcano-exitcode-restartjob.yaml", taskEnv("VC_RUNS="+runs))
	if o.res.Phase != completion.PhaseSucceeded || o.res.Attempts != 3 {
		t.Errorf("result = %+v, want succeeded after 3 attempts", o.res)
	}
	b, _ := os.ReadFile(filepath.Join(runs, "count"))
	if strings.TrimSpace(string(b)) != "3" {
		t.Errorf("runs = %q, want 3", b)
	}
}

func TestVolcanoMaxRetryExhausted(t *testing.T) {
	runs := t.TempDir()
	o := run(t, "testdata/volcano-maxretry.yaml", taskEnv("VC_RUNS="+runs))
	if o.res.Phase != completion.PhaseFailed || o.res.ExitCode != 3 || o.res.Attempts != 2 {
		t.Errorf("result = %+v, want failed with exit code 3 after 2 attempts", o.res)
	}
}

// TaskCompleted → CompleteJob with never-ending workers: the job
// succeeds when the master's task completes; the workers are stopped
// (running.go CompleteJob: KillJob PodRetainPhaseSoft).
func TestVolcanoTaskCompleted(t *testing.T) {
	o := run(t, "testdata/volcano-taskcompleted.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded || o.res.Attempts != 1 {
		t.Errorf("result = %+v, want succeeded after 1 attempt", o.res)
	}
	for _, w := range []string{"worker-0", "worker-1"} {
		if o.states[w] != completion.Stopped {
			t.Errorf("%s = %s, want stopped", w, o.states[w])
		}
	}
}

// The ssh plugin's files at /root/.ssh (ssh.go mountRsaKey,
// generateSSHConfig @v1.16.0-alpha.1): the master reaches every pod named
// in the config with the plugin's key; the node's own /root/.ssh is left
// as it was (the files are in the tasks' views only).
func TestVolcanoSSHFiles(t *testing.T) {
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("no sshd (apt-get install openssh-server)")
	}
	before := dirList(t, "/root/.ssh")
	o := run(t, "testdata/volcano-ssh-files.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded\n%s", o.res, o.out)
	}
	for _, h := range []string{"vc-ssh-master-0", "vc-ssh-worker-0", "vc-ssh-worker-1"} {
		if !strings.Contains(o.out, "reached "+h+"\n") {
			t.Errorf("the master did not reach %s:\n%s", h, o.out)
		}
	}
	if after := dirList(t, "/root/.ssh"); after != before {
		t.Errorf("the node's /root/.ssh changed: %q, was %q", after, before)
	}
}

func dirList(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// exitCode 3 → RestartPod: two restarts in place within maxRetry 3, one
// attempt of the job; PodFailed → RestartTask: one restart.
func TestVolcanoRestartPod(t *testing.T) {
	for file, want := range map[string]string{"testdata/volcano-restartpod.yaml": "3", "testdata/volcano-podfailed-restarttask.yaml": "2"} {
		runs := t.TempDir()
		o := run(t, file, taskEnv("VC_RUNS="+runs))
		if o.res.Phase != completion.PhaseSucceeded || o.res.Attempts != 1 {
			t.Errorf("%s: result = %+v, want succeeded in 1 attempt", file, o.res)
		}
		b, _ := os.ReadFile(filepath.Join(runs, "count"))
		if strings.TrimSpace(string(b)) != want {
			t.Errorf("%s: runs = %q, want %s", file, b, want)
		}
	}
}

// Volcano's MPI example unchanged: the master builds its host list from
// /etc/volcano/mpiworker.host and runs the mpi4py allreduce over the ssh
// plugin on the two workers (ranks 0 and 1: sum 3).
func TestVolcanoMPI(t *testing.T) {
	if _, err := exec.LookPath("mpiexec"); err != nil || exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run() != nil {
		t.Skip("no OpenMPI / mpi4py (apt-get install openmpi-bin python3-mpi4py)")
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("no sshd (apt-get install openssh-server)")
	}
	o := run(t, "volcano-mpi.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded\n%s", o.res, o.out)
	}
	b, err := os.ReadFile(filepath.Join(o.dir, "mpimaster-0", "attempt-1", "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	ranks := allreduce.FindAllStringSubmatch(string(b), -1)
	if len(ranks) != 2 {
		t.Fatalf("%d ranks reported, want 2:\n%s", len(ranks), b)
	}
	for _, m := range ranks {
		if m[2] != "2" || m[3] != "3" {
			t.Errorf("rank %s: size %s sum %s, want 2 and 3", m[1], m[2], m[3])
		}
	}
}

// PodFailed → AbortJob (the job's policy) and exitCode 7 → TerminateJob
// (the task's, before the job's PodFailed → RestartJob): the job fails at
// once with the worker's code, in one attempt though maxRetry is 3, and
// the never-ending ps is stopped (applyPolicies; running.go AbortJob,
// TerminateJob: KillJob, @v1.16.0-alpha.1).
func TestVolcanoAbortTerminate(t *testing.T) {
	for file, code := range map[string]int{"testdata/volcano-podfailed-abortjob.yaml": 5, "testdata/volcano-exitcode-terminatejob.yaml": 7} {
		o := run(t, file, taskEnv())
		if o.res.Phase != completion.PhaseFailed || o.res.ExitCode != code || o.res.Attempts != 1 {
			t.Errorf("%s: result = %+v, want failed with exit code %d after 1 attempt", file, o.res, code)
		}
		if o.states["ps-0"] != completion.Stopped {
			t.Errorf("%s: ps-0 = %s, want stopped", file, o.states["ps-0"])
		}
	}
}

// TestVolcanoPolicies runs every testdata/volcano-policy-*.yaml, one row
// per file, and checks the verdict, exit code, attempts, runs and stopped
// tasks its "# want:" line gives (written from the upstream rule its
// comment cites: TaskFailed, the "*" wildcard on PodFailed and on
// TaskCompleted, first match with the task before the job, exitCode →
// CompleteJob, RestartTask until maxRetry, minSuccess reached and not).
// integration/nomad TestVolcanoPolicyTableOnNomad runs the same rows.
func TestVolcanoPolicies(t *testing.T) {
	for _, w := range drivertest.VolcanoWants(t, "testdata") {
		t.Run(w.File, func(t *testing.T) {
			runs := t.TempDir()
			o := run(t, filepath.Join("testdata", w.File), taskEnv("VC_RUNS="+runs))
			if string(o.res.Phase) != w.Phase || o.res.ExitCode != w.Exit || o.res.Attempts != w.Attempts {
				t.Errorf("result = %+v, want %s, exit code %d, %d attempts", o.res, w.Phase, w.Exit, w.Attempts)
			}
			if w.Runs != "" {
				b, _ := os.ReadFile(filepath.Join(runs, "count"))
				if got := strings.TrimSpace(string(b)); got != w.Runs {
					t.Errorf("runs = %q, want %s", got, w.Runs)
				}
			}
			for _, s := range w.Stopped {
				if o.states[s] != completion.Stopped {
					t.Errorf("%s = %s, want stopped", s, o.states[s])
				}
			}
		})
	}
}

// TestVolcanoNodeFields: spec.nodeName, status.hostIP and status.hostIPs
// are the node the task runs on (the kubelet's podFieldSelectorRuntimeValue,
// pkg/kubelet/kubelet_pods.go @v1.31.0): locally the machine's host name
// (not the pod's, which the task's own host name is) and one of its own
// addresses, a routable one when the machine has any.
func TestVolcanoNodeFields(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	own, routable := map[string]bool{}, false
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			own[n.IP.String()] = true
			routable = routable || n.IP.IsGlobalUnicast()
		}
	}
	o := run(t, "testdata/volcano-node-fields.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	for i := range 2 {
		b, err := os.ReadFile(filepath.Join(o.dir, fmt.Sprintf("worker-%d", i), "attempt-1", "stdout"))
		if err != nil {
			t.Fatal(err)
		}
		env := drivertest.PrintedEnv(string(b))
		if env["MY_NODE_NAME"] != host || env["MY_POD_NAME"] != fmt.Sprintf("vc-node-worker-%d", i) {
			t.Errorf("worker-%d: node %q, pod %q; want %q, vc-node-worker-%d", i, env["MY_NODE_NAME"], env["MY_POD_NAME"], host, i)
		}
		ip := net.ParseIP(env["MY_HOST_IP"])
		if ip == nil || !own[ip.String()] || routable && !ip.IsGlobalUnicast() || env["MY_HOST_IPS"] != env["MY_HOST_IP"] {
			t.Errorf("worker-%d: host IP %q, IPs %q; want one address of this machine's (%v), the same in both", i, env["MY_HOST_IP"], env["MY_HOST_IPS"], addrs)
		}
	}
}

// Volcano's TensorFlow shape unchanged on this one host: every task
// listens on port 2222 at its name of /etc/volcano/*.host, as each pod had
// its own network; as root each task gets one here (drivers/taskns Net),
// every worker reaches the ps and the other worker by name (examples/
// mesh.py), and no link of it is left on the host afterwards.
func TestVolcanoTFShapeOneHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a task's own network on a shared host needs root")
	}
	o := run(t, "volcano-tf-shape.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded\n%s", o.res, o.out)
	}
	for w, peers := range map[string]string{"worker-0": "ps:0,worker:1", "worker-1": "ps:0,worker:0"} {
		if want := "mesh ok: reached " + peers + "; sum=1030"; !strings.Contains(o.out, "["+w+"] worker:"+w[len(w)-1:]+": "+want) {
			t.Errorf("%s did not print %q:\n%s", w, want, o.out)
		}
	}
	drivertest.NoTaskNetLeft(t)
}

// Volcano's TensorFlow shape retried as a whole (worker 0 exits 3 on its
// first run, RestartJob: testdata/volcano-tf-restartjob.yaml) on this one
// host as root: the second attempt trains, each attempt's tasks on a link
// of their own (keyed by the run and the attempt: a retry's tasks never
// join a link the last attempt's may still hold), none left afterwards.
func TestVolcanoTFRetryOneHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a task's own network on a shared host needs root")
	}
	runs := t.TempDir()
	seen := drivertest.SeeTaskNets(t)
	o := run(t, "testdata/volcano-tf-restartjob.yaml", taskEnv("VC_RUNS="+runs))
	anchors := seen()
	if o.res.Phase != completion.PhaseSucceeded || o.res.Attempts != 2 {
		t.Fatalf("result = %+v, want succeeded after 2 attempts\n%s", o.res, o.out)
	}
	for w, peers := range map[string]string{"worker-0": "ps:0,worker:1", "worker-1": "ps:0,worker:0"} {
		if want := "mesh ok: reached " + peers + "; sum=1030"; !strings.Contains(o.out, "["+w+"] worker:"+w[len(w)-1:]+": "+want) {
			t.Errorf("%s did not print %q:\n%s", w, want, o.out)
		}
	}
	for _, a := range []string{"attempt-1", "attempt-2"} {
		if k := filepath.Join(o.dir, a); !anchors[drivertest.TaskNetAnchor(t, k)] {
			t.Errorf("no link of key %s seen on the host: %v", k, anchors)
		}
	}
	drivertest.NoTaskNetLeft(t)
}
