package slurm_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLIHandles drives the jobshift binary on Slurm: run -detach prints
// the handle slurm:ID, and status (a snapshot, text and JSON), the list,
// logs, stop and watch find the job by it without -to.
func TestCLIHandles(t *testing.T) {
	needCluster(t)
	bin := filepath.Join(t.TempDir(), "jobshift")
	if out, err := exec.Command("go", "build", "-o", bin, filepath.Join(repoRoot(), "cmd", "jobshift")).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	jobshift := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatal(err)
			}
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	job := filepath.Join(dir, "cli.json")
	os.WriteFile(job, []byte(`{"jobName": "cli-handles", "image": "busybox", "taskRoles": [
  {"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 128, "gpuNumber": 0,
   "command": "echo hello-$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX; sleep 600"}]}`), 0o644)

	out, code := jobshift("run", "-to", "slurm", "-detach", job)
	var h string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "submitted" && f[1] == "slurm" && f[2] == "job" {
			h = f[3]
		}
	}
	if code != 0 || !strings.HasPrefix(h, "slurm:") {
		t.Fatalf("run -detach: exit %d, handle %q\n%s", code, h, out)
	}
	defer exec.Command("scancel", strings.TrimPrefix(h, "slurm:")).Run()

	type status struct {
		Handle, Name, Phase string
		Tasks               []struct{ Role, State string }
	}
	var st status
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, code = jobshift("status", "-json", h)
		st = status{}
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
			t.Fatalf("status -json: exit %d, %v\n%s", code, err, out)
		}
		running := 0
		for _, task := range st.Tasks {
			if task.State == "running" {
				running++
			}
		}
		if running == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st.Handle != h || st.Name != "cli-handles" || st.Phase != "running" || len(st.Tasks) != 2 {
		t.Fatalf("status -json: %+v", st)
	}
	if out, code = jobshift("status", h); code != 0 || !strings.Contains(out, "worker-1") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	out, code = jobshift("status", "-to", "slurm", "-json")
	var list []status
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("status list: exit %d, %v\n%s", code, err, out)
	}
	found := false
	for _, s := range list {
		found = found || s.Handle == h
	}
	if !found {
		t.Errorf("status list lacks %s:\n%s", h, out)
	}
	for end := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		out, code = jobshift("logs", h, "worker-1")
		if (code == 0 && strings.Contains(out, "hello-1")) || time.Now().After(end) {
			break
		}
	}
	if code != 0 || !strings.Contains(out, "hello-1") {
		t.Errorf("logs worker-1: exit %d\n%s", code, out)
	}
	if out, code = jobshift("stop", h); code != 0 {
		t.Fatalf("stop: exit %d\n%s", code, out)
	}
	// watch follows (read only) to the verdict: stopped, 143.
	if out, code = jobshift("watch", "-interval", "500ms", h); code != 143 || !strings.Contains(out, "stopped") {
		t.Errorf("watch after stop: exit %d, want 143\n%s", code, out)
	}
}
