package sshemu

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// freePort asks the kernel for a loopback port nobody listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestMPIDirReleased: two MPIJob tasks of one host share the MPI
// directory (Nomad's /tmp/jobshift-mpi-<job>); it stays while either
// runs and is gone once both ended: the launcher's command returned, the
// idle worker's sshd was stopped with SIGTERM as the target stops it.
func TestMPIDirReleased(t *testing.T) {
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("needs openssh-server")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen")
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	mdir := filepath.Join(dir, "jobshift-mpi-job")
	hosts := fmt.Sprintf("127.0.0.1 %d job-launcher,127.0.0.1 %d job-worker-0", freePort(t), freePort(t))
	task := func(self string, args ...string) *exec.Cmd {
		cmd := exec.Command("sh", append([]string{script}, args...)...)
		cmd.Env = append(os.Environ(), "JOBSHIFT_SSH_HOSTS="+hosts, "JOBSHIFT_SSH_SELF="+self, "JOBSHIFT_SSH_KEY="+key,
			"JOBSHIFT_SSH_DIR="+filepath.Join(dir, self), "JOBSHIFT_MPI_DIR="+mdir, "JOBSHIFT_MPI_HOSTFILE=job-worker-0 slots=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd
	}
	worker := task("job-worker-0", "--idle")
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-worker.Process.Pid, syscall.SIGKILL)
	// the launcher's command reads the hostfile while the worker holds it
	if out, err := task("job-launcher", "--", "sh", "-c", "sleep 1; cat \""+mdir+"/hostfile\"").CombinedOutput(); err != nil || string(out) != "job-worker-0 slots=1\n" {
		t.Fatalf("launcher: %v %q", err, out)
	}
	time.Sleep(2 * time.Second) // the launcher's watcher notices its end
	if _, err := os.Stat(filepath.Join(mdir, "hostfile")); err != nil {
		t.Fatalf("the worker still runs, but: %v", err)
	}
	worker.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- worker.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle worker did not end on SIGTERM")
	}
	if _, err := os.Stat(mdir); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(mdir)
		t.Errorf("MPI directory left after every task ended: %v %v", err, entries)
	}
}
