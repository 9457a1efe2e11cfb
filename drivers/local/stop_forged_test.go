package local

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `jobshift stop local:DIR` signals the process run.json names. A run.json
// written by hand (or by another user, in a directory of theirs) naming
// some other process of this user's, with its true start time, must not
// get that process killed: only the jobshift process running that
// directory is signalled.
func TestStopForgedRunInfo(t *testing.T) {
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- victim.Wait() }()
	dir := t.TempDir()
	b, _ := json.Marshal(runInfo{Name: "x", PID: victim.Process.Pid, Start: procStart(victim.Process.Pid), Started: time.Now()})
	os.WriteFile(filepath.Join(dir, runInfoFile), b, 0o600)
	os.WriteFile(filepath.Join(dir, claimMarker), nil, 0o600)
	err := stopElsewhere(context.Background(), dir)
	select {
	case <-done:
		t.Fatal("stop killed a process that is not the run's")
	case <-time.After(300 * time.Millisecond):
	}
	if err == nil || !strings.Contains(err.Error(), "not the jobshift process of this run") {
		t.Errorf("stop: %v, want a refusal saying why", err)
	}
}

// The run's own process (it holds the event log open) is signalled.
func TestStopRunInfoOfTheRun(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, claimMarker)
	os.WriteFile(log, nil, 0o600)
	run := exec.Command("sh", "-c", `exec 3>>"$1"; trap 'exit 0' TERM; while :; do sleep 0.1; done`, "sh", log)
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	time.Sleep(200 * time.Millisecond)
	b, _ := json.Marshal(runInfo{Name: "x", PID: run.Process.Pid, Start: procStart(run.Process.Pid), Started: time.Now()})
	os.WriteFile(filepath.Join(dir, runInfoFile), b, 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stopElsewhere(ctx, dir); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the run's process was not stopped")
	}
}
