package nomad_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// masterLog runs the job file on raw_exec and returns its master's
// stdout and stderr, failing unless the job succeeded.
func masterLog(t *testing.T, path string) string {
	t.Helper()
	return masterLogOn(t, path, site())
}

// masterLogOn is masterLog under site config cfg.
func masterLogOn(t *testing.T, path string, cfg *siteconfig.Config) string {
	t.Helper()
	out, _ := masterRun(t, path, cfg)
	return out
}

// masterRun is masterLogOn, with the job's allocation IDs.
func masterRun(t *testing.T, path string, cfg *siteconfig.Config) (string, []string) {
	t.Helper()
	p := loadPlan(t, path, cfg)
	res, id := run(t, p)
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	for _, a := range allocs {
		for task := range a.TaskStates {
			logs.WriteString(catLogs(t, a.ID, task) + catStderr(t, a.ID, task))
		}
	}
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v; logs:\n%s", res, logs.String())
	}
	var ids []string
	for _, a := range allocs {
		ids = append(ids, a.ID)
	}
	return catLogs(t, allocs[0].ID, nomad.MainTask), ids
}

// TestInitEmptyDirOnRawExec: the init container writes into the pod's
// emptyDir and the main container reads it (the directory lives in the
// allocation, both tasks' views bind it); the memory emptyDir is a tmpfs
// of its sizeLimit (32Mi).
func TestInitEmptyDirOnRawExec(t *testing.T) {
	out := masterLog(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-emptydir.yaml"))
	if out != "cache: 500 lines\nfast: 32768k\n" {
		t.Errorf("master printed %q", out)
	}
}

// TestInitSecretOnRawExec: the init-secret example: its init container
// prepares the dataset the main container reads (a hostPath at its own
// path), under the pod's view, and the Secret's value reaches the task.
func TestInitSecretOnRawExec(t *testing.T) {
	out := masterLog(t, filepath.Join(agent.Repo(), "examples", "pytorchjob-init-secret.yaml"))
	if !strings.Contains(out, "dataset: 1000 lines; credential: present (sha256 matches)") {
		t.Errorf("master printed %q", out)
	}
}

// dockerSite runs the test jobs' busybox and python images as the locally
// built one.
func dockerSite(t *testing.T) *siteconfig.Config {
	needDocker(t)
	cfg := site()
	cfg.Nomad.Driver = "docker"
	cfg.Images = []siteconfig.ImageRule{{Pattern: "python:*", Replace: torchImage}, {Pattern: "busybox*", Replace: torchImage}}
	return cfg
}

// TestInitEmptyDirOnDocker: the same job on docker: the init container
// and the main container share the emptyDir through the allocation
// directory (a driver volume of both), and the memory emptyDir is
// docker's tmpfs mount of the sizeLimit.
func TestInitEmptyDirOnDocker(t *testing.T) {
	out := masterLogOn(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-emptydir.yaml"), dockerSite(t))
	if out != "cache: 500 lines\nfast: 32768k\n" {
		t.Errorf("master printed %q", out)
	}
}

// TestInitMemoryEmptyDir: a memory emptyDir the init container fills is
// what the main container reads, on raw_exec and docker. On raw_exec it
// is a tmpfs, as the kubelet's (the init task's view mounts it in the
// allocation directory on the node, the main task's binds it), and once
// the job has ended the unmount task has left no mount of the allocation
// on the node; on docker it is the allocation's directory on disk (no
// task before the init container can mount a tmpfs both containers see).
func TestInitMemoryEmptyDir(t *testing.T) {
	path := filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-memory.yaml")
	for _, c := range []struct {
		name string
		cfg  func(*testing.T) *siteconfig.Config
	}{{"raw_exec", func(*testing.T) *siteconfig.Config { return site() }}, {"docker", dockerSite}} {
		t.Run(c.name, func(t *testing.T) {
			out, allocs := masterRun(t, path, c.cfg(t))
			if !strings.HasPrefix(out, "fast: 300 lines\nfs: ") {
				t.Fatalf("master printed %q, want the init container's 300 lines and the file system", out)
			}
			if tmpfs := strings.HasSuffix(out, "fs: tmpfs\n"); tmpfs != (c.name == "raw_exec") {
				t.Errorf("master printed %q: tmpfs %v, want %v", out, tmpfs, c.name == "raw_exec")
			}
			if c.name != "raw_exec" {
				return
			}
			// the poststop task may still be running when the watcher has
			// its verdict: wait for the allocations to end
			waitAllocsDone(t, allocs)
			mounts, err := os.ReadFile("/proc/self/mountinfo")
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range allocs {
				if strings.Contains(string(mounts), id+"/alloc/jobshift-emptydir/") {
					t.Errorf("an emptyDir tmpfs of allocation %s is left on the node:\n%s", id, mounts)
				}
			}
		})
	}
}

// TestInitMemoryEmptyDirInitFails: an init container that fails after
// filling the memory emptyDir fails the task (the main task never runs),
// and still no tmpfs of the allocation is left on the node: the unmount
// task runs after a failed prestart too.
func TestInitMemoryEmptyDirInitFails(t *testing.T) {
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-memory.yaml"), site())
	st := &p.Job.Role("master").Init[0]
	st.Command.Args = nil
	st.Command.Command = []string{"sh", "-c", "seq 1 300 > /fast/train.txt; exit 3"}
	res, id := run(t, p)
	if res.Phase != completion.PhaseFailed || res.ExitCode != 3 {
		t.Errorf("result %+v, want failed with the init container's 3", res)
	}
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil || len(allocs) == 0 {
		t.Fatalf("allocations: %v", err)
	}
	var ids []string
	for _, a := range allocs {
		ids = append(ids, a.ID)
	}
	waitAllocsDone(t, ids)
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if strings.Contains(string(mounts), id+"/alloc/jobshift-emptydir/") {
			t.Errorf("an emptyDir tmpfs of allocation %s is left on the node", id)
		}
	}
}

// waitAllocsDone waits until every task of every allocation of ids has
// ended (a failed allocation is "failed" while its poststop tasks still
// run: Nomad's client status puts a failed task first).
func waitAllocsDone(t *testing.T, ids []string) {
	t.Helper()
	c := agent.Client(t)
	deadline := time.Now().Add(time.Minute)
	for _, id := range ids {
		for {
			a, _, err := c.Allocations().Info(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			done := a.ClientStatus != "running" && a.ClientStatus != "pending"
			for _, ts := range a.TaskStates {
				done = done && ts.State == "dead"
			}
			if done {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("allocation %s still %s", id, a.ClientStatus)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// TestEmptyDirNonRootOnNomad: the pod's emptyDirs are 0777 on raw_exec
// (made by the task view) and docker (made by the scratch task, as
// root), as the kubelet makes them: the main container's command, dropped
// to nobody, writes into both, next to the init container's file.
func TestEmptyDirNonRootOnNomad(t *testing.T) {
	path := filepath.Join(agent.Repo(), "integration", "testdata", "view", "emptydir-nonroot.yaml")
	for _, c := range []struct {
		name string
		cfg  func(*testing.T) *siteconfig.Config
	}{{"raw_exec", func(*testing.T) *siteconfig.Config { return site() }}, {"docker", dockerSite}} {
		t.Run(c.name, func(t *testing.T) {
			if out := masterLogOn(t, path, c.cfg(t)); out != "cache: 777 prepared\nnobody wrote: nobody nobody\n" {
				t.Errorf("master printed %q", out)
			}
		})
	}
}

// TestInitSecretEnvOnNomad: an init container's variable from a Secret
// reaches it on raw_exec and docker (through the job's Variable), and its
// proof in the emptyDir matches the main container's copy (the job holds
// no value: drivers/nomad TestInitSecretEnvRendered).
func TestInitSecretEnvOnNomad(t *testing.T) {
	path := filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-secret-env.yaml")
	for _, c := range []struct {
		name string
		cfg  func(*testing.T) *siteconfig.Config
	}{{"raw_exec", func(*testing.T) *siteconfig.Config { return site() }}, {"docker", dockerSite}} {
		t.Run(c.name, func(t *testing.T) {
			if out := masterLogOn(t, path, c.cfg(t)); out != "init saw the token: 14 bytes\n" {
				t.Errorf("master printed %q", out)
			}
		})
	}
}
