package drivertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MPIJobs are the allreduce jobs of integration/testdata/mpi, by test
// name, and how many ranks each runs.
var MPIJobs = []struct {
	Name, File string
	Ranks      int
	Launcher   string // the task whose output has every rank's line
	// SharedMemory: the ranks that share memory, by the host name of the
	// task they run in (nil: the job does not print it). The hostfile
	// lists worker-0 then worker-1, two slots each, and mpirun fills a
	// host's slots first (OpenMPI's default --map-by slot).
	SharedMemory map[string]string
}{
	{"v2beta1", "v2beta1.yaml", 4, "launcher-0", map[string]string{"allreduce-worker-0": "0,1", "allreduce-worker-1": "2,3"}},
	{"v1alpha2", "v1alpha2.yaml", 4, "launcher-0", nil},
	{"pai-horovod", "pai-horovod.yaml", 4, "master-0", nil},
	{"trainjob", "trainjob.yaml", 6, "launcher-0", nil},
}

// MPITestdata is the directory of the MPI jobs, found from the test's
// package directory upwards (drivers/local, integration/nomad, ...).
func MPITestdata(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "integration", "testdata", "mpi")
		if _, err := os.Stat(filepath.Join(p, "v2beta1.yaml")); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("integration/testdata/mpi not found")
		}
		dir = up
	}
}

// mpiImport opens every rank's program in integration/testdata/mpi.
const mpiImport = "from mpi4py import MPI;"

// MPIJobFile copies the MPI job file into a test directory with a marker
// unique to this test in every rank's program, and returns its path and
// the marker. Leftovers(marker) then finds this test's ranks only: the
// packages of `go test ./...` run at once, and another package's ranks
// (on another engine) are not this test's leftovers.
func MPIJobFile(t *testing.T, file string) (path, marker string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(MPITestdata(t), file))
	if err != nil {
		t.Fatal(err)
	}
	marker = fmt.Sprintf("jobshift_test_%d_%s", os.Getpid(), regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	if !strings.Contains(string(b), mpiImport) {
		t.Fatalf("%s: no %q to mark", file, mpiImport)
	}
	// A Python string constant: no quote, no shell or YAML metacharacter.
	text := strings.ReplaceAll(string(b), mpiImport, fmt.Sprintf("%s marker = %q;", mpiImport, marker))
	path = filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, marker
}

// NeedMPI skips (fails under CI=true) when this machine lacks what the MPI
// jobs run: Debian's openmpi-bin, python3-mpi4py for /usr/bin/python3, and
// openssh-server.
func NeedMPI(t *testing.T) {
	t.Helper()
	var missing []string
	for _, p := range []string{"mpirun", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		missing = append(missing, "/usr/sbin/sshd")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run(); err != nil {
		missing = append(missing, "python3-mpi4py")
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("MPI test needs %v (scripts/test.sh installs them)", missing)
	}
	t.Skipf("MPI test needs %v", missing)
}

var allreduceRE = regexp.MustCompile(`allreduce rank (\d+) of (\d+) sum (\d+)`)

// CheckAllreduce checks that output holds one line from each of the n
// ranks, each with the sum 1+2+…+n (computed here, not by the job).
func CheckAllreduce(t *testing.T, output string, n int) {
	t.Helper()
	want := n * (n + 1) / 2
	seen := map[int]bool{}
	for _, m := range allreduceRE.FindAllStringSubmatch(output, -1) {
		rank, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		sum, _ := strconv.Atoi(m[3])
		if size != n || sum != want {
			t.Errorf("rank %d: world %d sum %d, want world %d sum %d", rank, size, sum, n, want)
		}
		if seen[rank] {
			t.Errorf("rank %d printed twice", rank)
		}
		seen[rank] = true
	}
	if len(seen) != n {
		t.Errorf("%d ranks printed, want %d; output:\n%s", len(seen), n, output)
	}
}

var sharedRE = regexp.MustCompile(`allreduce rank (\d+) of \d+ sum \d+ host (\S+) shared-memory peers (\S+)`)

// CheckSharedMemory checks that each rank's line in output names the host
// name of its task and, as the ranks it shares memory with, exactly the
// ranks of that task (want: by host name), and that every task of want
// had ranks. A rank that shared memory with another task's ranks was one
// OpenMPI took for node-local while it was not (every task with the
// node's host name), which its shared-memory transport crashes on.
func CheckSharedMemory(t *testing.T, output string, want map[string]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range sharedRE.FindAllStringSubmatch(output, -1) {
		rank, host, peers := m[1], m[2], m[3]
		w, ok := want[host]
		if !ok || peers != w || !slices.Contains(strings.Split(w, ","), rank) {
			t.Errorf("rank %s: host %s shares memory with ranks %s; want the ranks by task %v", rank, host, peers, want)
		}
		seen[host] = true
	}
	for host := range want {
		if !seen[host] {
			t.Errorf("no rank ran in %s; output:\n%s", host, output)
		}
	}
}

// Leftovers lists the processes of this machine whose command line
// contains marker (a run directory, an sshd config path, the ranks'
// program text), as "pid cmdline".
func Leftovers(marker string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	self := strconv.Itoa(os.Getpid())
	for _, f := range procs {
		pid := filepath.Base(filepath.Dir(f))
		if pid == self {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 {
			continue
		}
		cmd := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		if strings.Contains(cmd, marker) {
			out = append(out, fmt.Sprintf("%s %s", pid, cmd))
		}
	}
	sort.Strings(out)
	return out
}

// NeedPMIx skips (fails under CI=true) when the Slurm cluster of SLURM_CONF
// cannot launch ranks with srun --mpi=pmix (`srun --mpi=list` lacks pmix:
// on Debian, libpmix-dev was missing when slurmd started).
func NeedPMIx(t *testing.T) {
	t.Helper()
	out, err := exec.Command("srun", "--mpi=list").CombinedOutput()
	if err == nil && regexp.MustCompile(`(?m)\bpmix\b`).Match(out) {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("srun --mpi=list has no pmix (%v): %s", err, out)
	}
	t.Skipf("srun --mpi=list has no pmix (%v): %s", err, out)
}

// CheckPMIxStep: Slurm ran the ranks: the job has a step named mpirun
// (the pmix mpirun's srun) that completed, and the launcher's output
// (out) has no line of the shim falling back to OpenMPI's ssh launch.
// It returns the nodes the step ran on (scontrol show hostnames).
func CheckPMIxStep(t *testing.T, id, out string) []string {
	t.Helper()
	if strings.Contains(out, "jobshift mpirun:") {
		t.Errorf("the mpirun line fell back to ssh:\n%s", out)
	}
	var got string
	re := regexp.MustCompile(`(?m)^[0-9+]+\.[0-9]+\|mpirun\|COMPLETED\|(.+)$`)
	for try := 0; try < 40; try++ { // sacct lags behind the job
		b, err := exec.Command("sacct", "-j", id, "-P", "-n", "--format=JobID,JobName,State,NodeList").Output()
		if err != nil {
			t.Fatalf("sacct: %v", err)
		}
		got = string(b)
		if m := re.FindStringSubmatch(got); m != nil {
			hosts, err := exec.Command("scontrol", "show", "hostnames", m[1]).Output()
			if err != nil {
				t.Fatalf("scontrol show hostnames %s: %v", m[1], err)
			}
			return strings.Fields(string(hosts))
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Errorf("job %s has no completed mpirun step:\n%s", id, got)
	return nil
}
