package nomad_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// crashloop fails every run; restartPolicy OnFailure restarts it in place
// until backoffLimit 5 (4 restarts).
const crashloop = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: crashloop
spec:
  runPolicy:
    backoffLimit: 5
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: ["sh", "-c", "exit 3"]
`

// TestRestartBackoffOnNomad: on a real agent the task is restarted in place
// (same allocation) after the kubelet's back-off, scaled down
// (restart_backoff 300ms: 0, 300ms, 600ms, 1.2s); the run start/end times
// the task recorded in its directory show each wait (lower bounds only).
func TestRestartBackoffOnNomad(t *testing.T) {
	restartBackoff(t, site(), "busybox")
}

// TestRestartBackoffOnDocker: the same in a container (the loop runs with
// the image's sh, date and sleep).
func TestRestartBackoffOnDocker(t *testing.T) {
	needDocker(t)
	restartBackoff(t, &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"}}, torchImage)
}

func restartBackoff(t *testing.T, cfg *siteconfig.Config, image string) {
	c := agent.Client(t)
	f := filepath.Join(t.TempDir(), "crashloop.yaml")
	if err := os.WriteFile(f, []byte(strings.Replace(crashloop, "busybox", image, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := loadPlan(t, f, cfg)
	p.Options[nomad.OptRestartBackoff] = "300ms"
	res, id := run(t, p)
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(id, true, nil) })
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}

	if capsRefused(allocs) {
		// An agent started by scripts/nomad-dev-start.sh allows them; a
		// shared agent configured otherwise cannot run PAI's containers.
		if os.Getenv("CI") == "true" {
			t.Fatal("the agent's Docker driver refuses OpenPAI's capabilities (allow_caps): start it with scripts/nomad-dev-start.sh")
		}
		t.Skip("the agent's Docker driver refuses OpenPAI's capabilities (allow_caps); scripts/nomad-dev-start.sh allows them")
	}
	if res.Phase != completion.PhaseFailed || res.ExitCode != 3 {
		t.Errorf("result = %+v, want failed with 3 (backoffLimit 5)", res)
	}
	if t.Failed() {
		for _, a := range allocs {
			for name, ts := range a.TaskStates {
				for _, e := range ts.Events {
					t.Logf("%s: %s %s", name, e.Type, e.DisplayMessage)
				}
			}
		}
	}
	if len(allocs) != 1 {
		t.Fatalf("%d allocations, want 1 (restarts stay in the allocation)", len(allocs))
	}
	runs := recordedRuns(t, c, allocs[0].ID)
	want := []time.Duration{0, 300 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond}
	if len(runs) != len(want)+1 {
		t.Fatalf("%d runs recorded, want %d: %v", len(runs), len(want)+1, runs)
	}
	for i, w := range want {
		gap := time.Duration(runs[i+1][0]-runs[i][1]) * time.Millisecond
		t.Logf("restart %d: back-off %s, measured %s", i+1, w, gap)
		if gap < w {
			t.Errorf("restart %d came %s after the crash, before its back-off %s", i+1, gap, w)
		}
		if runs[i][2] != 3 {
			t.Errorf("run %d exited %d, want 3", i, runs[i][2])
		}
	}
}

// recordedRuns reads the restart loop's record (start ms, end ms, code per
// run) from the main task's directory.
func recordedRuns(t *testing.T, c *api.Client, allocID string) [][3]int64 {
	t.Helper()
	alloc, _, err := c.Allocations().Info(allocID, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.AllocFS().Cat(alloc, nomad.MainTask+"/local/jobshift-runs", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	var runs [][3]int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var x [3]int64
		if _, err := fmt.Sscanf(l, "%d %d %d", &x[0], &x[1], &x[2]); err != nil {
			t.Fatalf("jobshift-runs line %q: %v", l, err)
		}
		runs = append(runs, x)
	}
	return runs
}

// capsRefused: the Docker driver refused the capabilities jobshift adds
// (OpenPAI's SYS_ADMIN, IPC_LOCK, DAC_READ_SEARCH).
func capsRefused(allocs []*api.AllocationListStub) bool {
	for _, a := range allocs {
		for _, ts := range a.TaskStates {
			for _, e := range ts.Events {
				if e.Type == api.TaskDriverFailure && strings.Contains(e.DisplayMessage, "does not allow the following capabilities") {
					return true
				}
			}
		}
	}
	return false
}
