package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A job name of 250 characters is valid (PAI set no length limit on v1
// names); its default run directory gets a short name instead of failing
// with "file name too long".
func TestRunLongJobName(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	isolate(t)
	name := strings.Repeat("n", 250)
	job := filepath.Join(t.TempDir(), "long.json")
	doc := `{"jobName": "` + name + `", "image": "busybox", "taskRoles": [{"name": "w", "taskNumber": 1, "command": "echo $PAI_JOB_NAME"}]}`
	if err := os.WriteFile(job, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "-plain", job)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	// The task still sees the whole name (PAI_JOB_NAME is user~name).
	if !strings.Contains(string(out), "[w-0] tester~"+name+"\n") {
		t.Errorf("the task did not print its whole job name:\n%s", out)
	}
}

// Two runs with one -run-dir: the second is refused before it starts
// anything, the first is not disturbed. Before, both ran in one directory
// and one job's logs were lost while both exited 0.
func TestRunSameRunDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	first, runDir := startRun(t, ctx, bin, "sleepers.json", "1s", &out)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sleepersReady(runDir))
	job, _ := filepath.Abs(filepath.Join("testdata", "run", "sleepers.json"))
	second := exec.CommandContext(ctx, bin, "run", "-plain", "-run-dir", runDir, job)
	got, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("second run: %v, want exit code 1\n%s", err, got)
	}
	if want := "already holds a run"; !strings.Contains(string(got), want) {
		t.Errorf("second run's message lacks %q:\n%s", want, got)
	}
	if err := first.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if !strings.Contains(out.String(), "job sleepers stopped") {
		t.Errorf("first run did not end as stopped:\n%s", out.String())
	}
}

// A full run-directory disk: the task goes on and succeeds, and the output
// says why the files are short. Before, the task died of SIGPIPE (exit 141)
// without a word. Needs root for a small tmpfs.
func TestRunDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	small := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", small).Run() })
	bin := buildJobshift(t)
	isolate(t)
	job, _ := filepath.Abs(filepath.Join("testdata", "run", "fill.json"))
	cmd := exec.Command(bin, "run", "-plain", "-run-dir", filepath.Join(small, "run"), job)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("run: %v, want success\n...%s", err, tail(out))
	}
	for _, want := range []string{
		"[talker-0] jobshift: cannot keep this output in " + filepath.Join(small, "run", "talker-0", "attempt-1", "stdout") +
			": write " + filepath.Join(small, "run", "talker-0", "attempt-1", "stdout") + ": no space left on device; the task goes on",
		"[talker-0] 200000\n[talker-0] done\n",
		"job fill succeeded (exit code 0)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n...%s", want, tail(out))
		}
	}
}

func tail(b []byte) []byte { return b[max(0, len(b)-2000):] }
