package nomad_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// The ConfigMap-entry example's key, as its Secret holds it and in the
// base64 form of a Secret's data.
const entryKey, entryKeyB64 = "dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ=="

// TestSecretFileOnRawExec: the example's entrypoint is the ConfigMap's
// script at its path and its Secret volume's file (/var/run/store/key,
// 0400) holds the same key as its STORE_KEY (the script compares them),
// under the task view of raw_exec; the key is in no job version's
// specification and in no task's log.
func TestSecretFileOnRawExec(t *testing.T) {
	secretFileRun(t, site())
}

// TestSecretFileOnDocker: the same on the docker driver, the files
// mounted from the task directory.
func TestSecretFileOnDocker(t *testing.T) {
	needDocker(t)
	cfg := site()
	cfg.Nomad.Driver = "docker"
	cfg.Images = []siteconfig.ImageRule{{Pattern: "python:*", Replace: torchImage}}
	secretFileRun(t, cfg)
}

func secretFileRun(t *testing.T, cfg *siteconfig.Config) {
	c := agent.Client(t)
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pytorchjob-configmap-entry.yaml"), cfg)
	res, id := run(t, p)
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	const want = "rank 0 of 2, epochs 3: entrypoint from the ConfigMap, key from the Secret"
	var logs strings.Builder
	// A Docker task's output reaches its log through Nomad's docker logger,
	// which may still be writing it when the job has ended (a container of
	// a few ms: CI read the master's log empty).
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		logs.Reset()
		for _, a := range allocs {
			for task := range a.TaskStates {
				logs.WriteString(catLogs(t, a.ID, task) + catStderr(t, a.ID, task))
			}
		}
		if res.Phase != completion.PhaseSucceeded || strings.Contains(logs.String(), want) || time.Now().After(deadline) {
			break
		}
	}
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v; logs:\n%s", res, logs.String())
	}
	// the Master's success ends the job (its worker may be stopped first)
	if !strings.Contains(logs.String(), want) {
		t.Errorf("the master did not print %q; logs:\n%s", want, logs.String())
	}
	versions, _, _, err := c.Jobs().Versions(id, false, nil)
	if err != nil || len(versions) == 0 {
		t.Fatalf("job versions: %v", err)
	}
	for _, v := range versions {
		b, _ := json.Marshal(v)
		if strings.Contains(string(b), entryKey) || strings.Contains(string(b), entryKeyB64) {
			t.Errorf("job version %d holds the Secret's value", *v.Version)
		}
		if !strings.Contains(string(b), "jobshift-files") {
			t.Errorf("job version %d has no platform file template: the scan above proves nothing", *v.Version)
		}
	}
	if strings.Contains(logs.String(), entryKey) || strings.Contains(logs.String(), entryKeyB64) {
		t.Errorf("a task's log holds the Secret's value")
	}
}
