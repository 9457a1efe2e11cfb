package taskns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
)

// noNetLeft fails when a task network's anchor (jsn*) is still on the host
// or a hub pin in this process's mount table, once the kernel had the time
// to destroy the namespaces of ended tasks (cleanup_net runs on a
// workqueue, after the last process left).
func noNetLeft(t *testing.T) {
	t.Helper()
	drivertest.NoTaskNetLeft(t)
	if mi, err := os.ReadFile("/proc/self/mountinfo"); err == nil && strings.Contains(string(mi), "jobshift-hub-") {
		t.Errorf("a hub pin is in the host's mount table")
	}
}

// runNetJob starts the tasks (their spec: own network of key, peers every
// task) at once, each running cmd, and returns their outputs by name; a
// task that fails fails the test.
func runNetJob(t *testing.T, key string, names []string, kill bool, cmd string) map[string]string {
	t.Helper()
	return startNetJob(t, key, names, kill, cmd)()
}

// startNetJob starts runNetJob's tasks and returns what waits for them.
func startNetJob(t *testing.T, key string, names []string, kill bool, cmd string) func() map[string]string {
	t.Helper()
	dir := openDir(t)
	script := filepath.Join(dir, "taskns.sh")
	if err := os.WriteFile(script, []byte(Script), 0o644); err != nil {
		t.Fatal(err)
	}
	var peers []string
	for _, n := range names {
		peers = append(peers, "127.0.0.1 "+n+" "+n+".tf")
	}
	var cmds []*exec.Cmd
	outs := make([]strings.Builder, len(names))
	for i, n := range names {
		s := Spec{Hostname: n, Addr: "127.0.0.1", Hosts: []Host{{Addr: "127.0.0.1", Names: []string{n, n + ".tf"}}},
			Scratch: filepath.Join(dir, n), Net: &Net{Key: key, Range: DefaultNetRange}}
		data, err := s.Encode(ModeRoot)
		if err != nil {
			t.Fatal(err)
		}
		spec := filepath.Join(dir, n+".spec")
		if err := os.WriteFile(spec, data, 0o644); err != nil {
			t.Fatal(err)
		}
		argv := Wrap(script, spec, []string{"sh", "-c", cmd})
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin:" + os.Getenv("PATH"), "JOBSHIFT_PEER_HOSTS=" + strings.Join(peers, ",")}
		c.Stdout, c.Stderr = &outs[i], &outs[i]
		cmds = append(cmds, c)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.Wait() }()
	}
	return func() map[string]string {
		t.Helper()
		if kill {
			time.Sleep(2 * time.Second)
			for _, c := range cmds {
				_ = c.Process.Kill()
			}
		}
		wg.Wait()
		got := map[string]string{}
		for i, n := range names {
			got[n] = outs[i].String()
			if errs[i] != nil && !kill {
				t.Errorf("task %s: %v: %s", n, errs[i], got[n])
			}
		}
		return got
	}
}

// reachCmd listens on port 2222 (each task on the same port, as its pod
// did), then connects to every peer by its platform name until it
// answers, printing "NAME ADDR" for each: the address the name resolved
// to and the peer's own host name as it answers.
const reachCmd = `exec python3 -c '
import socket, sys, threading, time
me = socket.gethostname()
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind(("0.0.0.0", 2222)); srv.listen(16)
def serve():
    while True:
        c, _ = srv.accept(); c.sendall(me.encode()); c.close()
threading.Thread(target=serve, daemon=True).start()
for peer in sys.argv[1:]:
    for _ in range(100):
        try:
            c = socket.create_connection((peer + ".tf", 2222), timeout=1); break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("cannot reach " + peer)
    print(peer, c.getpeername()[0], c.recv(100).decode()); c.close()
time.sleep(1.5)
' tf-ps-0 tf-worker-0 tf-worker-1`

// TestScriptNet: tasks sharing this host, each in its own network, all
// listen on one port and reach every peer (themselves included) at its
// own address by its platform name; their link is made once however many
// race to make it, and nothing of it stays once they end, or are killed.
func TestScriptNet(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a task's own network needs root")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	names := []string{"tf-ps-0", "tf-worker-0", "tf-worker-1"}
	got := runNetJob(t, fmt.Sprintf("jobshift-test-%d", os.Getpid()), names, false, reachCmd)
	want := "tf-ps-0 198.18.0.1 tf-ps-0\ntf-worker-0 198.18.0.2 tf-worker-0\ntf-worker-1 198.18.0.3 tf-worker-1\n"
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, n := range keys {
		if got[n] != want {
			t.Errorf("task %s got\n%s\nwant\n%s", n, got[n], want)
		}
	}
	noNetLeft(t)

	// killed (SIGKILL: no trap runs): the kernel removes it all
	runNetJob(t, fmt.Sprintf("jobshift-test-kill-%d", os.Getpid()), names, true, "exec sleep 30")
	noNetLeft(t)
}

// TestScriptNetPerKey: two attempts of one job on this host at once (a
// retry started while the last attempt's tasks still end), their tasks of
// the same names at the same addresses, each under its attempt's key:
// the host holds two links (an anchor named for each key), and every task
// reaches only the peers of its own attempt. Under one key both
// attempts' tasks would join one link, where each address is twice.
func TestScriptNetPerKey(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a task's own network needs root")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	names := []string{"tf-ps-0", "tf-worker-0", "tf-worker-1"}
	ready, done := t.TempDir(), filepath.Join(t.TempDir(), "done")
	keys := []string{fmt.Sprintf("jobshift-test-%d/0", os.Getpid()), fmt.Sprintf("jobshift-test-%d/1", os.Getpid())}
	var waits []func() map[string]string
	for i, k := range keys {
		waits = append(waits, startNetJob(t, k, names, false, attemptCmd(i, ready, done)))
	}
	// every task of both attempts has reached its peers and still runs
	for try := 0; ; try++ {
		if es, _ := os.ReadDir(ready); len(es) == 2*len(names) {
			break
		}
		if try == 600 {
			_ = os.WriteFile(done, nil, 0o644)
			t.Fatal("the tasks of both attempts were not all up after 60s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if a := anchorOf(t, k); !strings.Contains(string(out), ": "+a+"@") {
			t.Errorf("no link of key %s (anchor %s) on the host:\n%s", k, a, out)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, wait := range waits {
		want := fmt.Sprintf("tf-ps-0 198.18.0.1 %[1]d tf-ps-0\ntf-worker-0 198.18.0.2 %[1]d tf-worker-0\ntf-worker-1 198.18.0.3 %[1]d tf-worker-1\n", i)
		for n, got := range wait() {
			if got != want {
				t.Errorf("attempt %d, task %s got\n%s\nwant\n%s", i, n, got, want)
			}
		}
	}
	noNetLeft(t)
}

// anchorOf is the host's name of the anchor of key's link, as taskns.sh
// names it: jsn and the POSIX cksum of the key in 8 hex digits.
func anchorOf(t *testing.T, key string) string {
	t.Helper()
	c := exec.Command("cksum")
	c.Stdin = strings.NewReader(key)
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	var sum uint32
	if _, err := fmt.Sscan(string(out), &sum); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("jsn%08x", sum)
}

// attemptCmd is reachCmd for attempt n: each task answers its attempt and
// host name, marks itself in ready once it reached every peer, and runs
// until done exists.
func attemptCmd(n int, ready, done string) string {
	return fmt.Sprintf(`exec python3 -c '
import os, socket, sys, threading, time
me = socket.gethostname()
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind(("0.0.0.0", 2222)); srv.listen(16)
def serve():
    while True:
        c, _ = srv.accept(); c.sendall(b"%[1]d " + me.encode()); c.close()
threading.Thread(target=serve, daemon=True).start()
for peer in sys.argv[1:]:
    for _ in range(300):
        try:
            c = socket.create_connection((peer + ".tf", 2222), timeout=1); break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("cannot reach " + peer)
    print(peer, c.getpeername()[0], c.recv(100).decode()); c.close()
sys.stdout.flush()
open(os.path.join("%[2]s", "%[1]d-" + me), "w").close()
for _ in range(600):
    if os.path.exists("%[3]s"):
        break
    time.sleep(0.1)
' tf-ps-0 tf-worker-0 tf-worker-1`, n, ready, done)
}

// TestScriptNetNeedsRoot: without root a task gets no network of its own
// (exit 127 before the command), and the message says why and what fixes
// it.
func TestScriptNetNeedsRoot(t *testing.T) {
	ms := modes(t)
	if ms[len(ms)-1] != ModeUser {
		t.Skip("no unprivileged user namespace here")
	}
	out, err := run(t, ModeUser, Spec{Hostname: "tf-ps-0", Net: &Net{Key: "k", Range: DefaultNetRange}},
		[]string{"JOBSHIFT_PEER_HOSTS=127.0.0.1 tf-ps-0"}, "echo TASKRAN")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || strings.Contains(out, "TASKRAN") {
		t.Fatalf("got %q, %v; want exit 127 before the command", out, err)
	}
	for _, want := range []string{"only as root", "run the job's tasks as root, or on separate hosts"} {
		if !strings.Contains(out, want) {
			t.Errorf("message %q lacks %q", out, want)
		}
	}
}
