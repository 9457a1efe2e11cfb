package nomad_test

import (
	"path/filepath"
	"strings"
	"testing"

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
	return catLogs(t, allocs[0].ID, nomad.MainTask)
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
// what the main container reads, on raw_exec and docker (the allocation's
// directory: Nomad's tasks share no tmpfs).
func TestInitMemoryEmptyDir(t *testing.T) {
	path := filepath.Join(agent.Repo(), "integration", "testdata", "view", "init-memory.yaml")
	for _, c := range []struct {
		name string
		cfg  func(*testing.T) *siteconfig.Config
	}{{"raw_exec", func(*testing.T) *siteconfig.Config { return site() }}, {"docker", dockerSite}} {
		t.Run(c.name, func(t *testing.T) {
			if out := masterLogOn(t, path, c.cfg(t)); !strings.HasPrefix(out, "fast: 300 lines\n") {
				t.Errorf("master printed %q, want the init container's 300 lines", out)
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
