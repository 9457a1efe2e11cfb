package nomad_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/translate/completion"
)

// masterLog runs the job file on raw_exec and returns its master's
// stdout and stderr, failing unless the job succeeded.
func masterLog(t *testing.T, path string) string {
	t.Helper()
	p := loadPlan(t, path, site())
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
