package nomad_test

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
)

// freePorts finds a port p with p, p+1 and p+2 free (HTTP, RPC, serf).
func freePorts(t *testing.T) int {
	t.Helper()
	for p := 31000 + os.Getpid()%2000*3; p < 39000; p += 3 {
		ok := true
		for i := 0; i < 3 && ok; i++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+i))
			if err != nil {
				ok = false
				continue
			}
			l.Close()
		}
		if ok {
			return p
		}
	}
	t.Fatal("no three free ports")
	return 0
}

// marked lists the PIDs whose environment holds entry exactly.
func marked(entry string) []string {
	files, _ := filepath.Glob("/proc/[0-9]*/environ")
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, e := range bytes.Split(b, []byte{0}) {
			if string(e) == entry {
				out = append(out, strings.Split(f, "/")[2])
			}
		}
	}
	return out
}

// TestDevStopLeavesNothing starts a second, private dev agent (own port and
// cache dir; the shared one is never touched), runs tasks that ignore
// SIGTERM on it, and stops it with scripts/nomad-dev-stop.sh: first after
// SIGKILLing the agent (its executors, logmon and tasks were orphaned and
// kept running: 296 after two benchmark runs), then gracefully. Nothing it
// started may be left.
func TestDevStopLeavesNothing(t *testing.T) {
	bin := agent.Binary()
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no nomad binary (CI=true): run scripts/install-nomad.sh")
		}
		t.Skip("no nomad binary")
	}
	if testing.Short() {
		t.Skip("starts a private Nomad agent")
	}
	for _, killFirst := range []bool{true, false} {
		t.Run(fmt.Sprintf("agent SIGKILLed first=%v", killFirst), func(t *testing.T) {
			cache := t.TempDir()
			port := freePorts(t)
			env := append(os.Environ(), "JOBSHIFT_CACHE="+cache, "NOMAD_BIN="+bin, "NOMAD_DEV_PORT="+strconv.Itoa(port), "NOMAD_DEV_GPUS=0")
			script := func(name string) {
				cmd := exec.Command("bash", filepath.Join(agent.Repo(), "scripts", name))
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", name, err, out)
				}
			}
			mark := "JOBSHIFT_NOMAD_DEV=" + filepath.Join(cache, "nomad", "dev")
			t.Cleanup(func() {
				script("nomad-dev-stop.sh")
				if left := marked(mark); len(left) > 0 {
					t.Errorf("left running after the test: %v", left)
				}
				// the data dir is outside the cache when the cache path is long
				if d, err := os.ReadFile(filepath.Join(cache, "nomad", "dev", "data_dir")); err == nil {
					_ = os.RemoveAll(strings.TrimSpace(string(d)))
				}
			})
			script("nomad-dev-start.sh")
			cfg := api.DefaultConfig()
			cfg.Address = fmt.Sprintf("http://127.0.0.1:%d", port)
			c, err := api.NewClient(cfg)
			if err != nil {
				t.Fatal(err)
			}
			runSleepers(t, c)
			if killFirst {
				pid, _ := os.ReadFile(filepath.Join(cache, "nomad", "dev", "nomad.pid"))
				p, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
				if p <= 0 || syscall.Kill(p, syscall.SIGKILL) != nil {
					t.Fatalf("cannot kill the private agent %q", pid)
				}
				time.Sleep(time.Second)
				if len(marked(mark)) == 0 {
					t.Fatal("nothing orphaned: the test no longer shows the defect")
				}
			}
			script("nomad-dev-stop.sh")
			if left := marked(mark); len(left) > 0 {
				t.Errorf("processes left after nomad-dev-stop.sh: %v", left)
			}
		})
	}
}

// runSleepers registers two raw_exec tasks that ignore SIGTERM and waits
// until both run.
func runSleepers(t *testing.T, c *api.Client) {
	t.Helper()
	job := api.NewBatchJob("devstop", "devstop", "global", 50)
	job.Datacenters = []string{"*"}
	task := api.NewTask("t", "raw_exec").SetConfig("command", "/bin/sh").
		SetConfig("args", []string{"-c", "trap '' TERM; sleep 3000"})
	task.KillTimeout = new(2 * time.Second)
	task.Resources = &api.Resources{CPU: new(20), MemoryMB: new(16)}
	job.AddTaskGroup(api.NewTaskGroup("g", 2).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 120; i++ {
		allocs, _, err := c.Jobs().Allocations("devstop", false, nil)
		if err == nil {
			running := 0
			for _, a := range allocs {
				if a.ClientStatus == "running" {
					running++
				}
			}
			if running == 2 {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the sleepers never ran")
}
