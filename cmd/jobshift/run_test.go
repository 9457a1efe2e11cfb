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

	"github.com/jobshift/jobshift/drivers/local"
)

// inRepoRoot runs the test from the repository root, where the examples'
// commands (python3 examples/mesh.py) find their program.
func inRepoRoot(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("PATH", "/usr/bin:/bin:"+os.Getenv("PATH"))
}

func TestRunExitCodes(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  string // MESH_FAIL value
		code int
		want []string // substrings of the output
	}{
		"success": {args: []string{"examples/pai-v1-ps-worker.json"}, code: 0,
			want: []string{"[worker-1] worker:1: mesh ok", "jobshift: ps-0 stopped (exit code 143)", "job mesh-ps-worker succeeded (exit code 0) after 1 attempt(s)"}},
		"failing worker": {args: []string{"examples/pai-v1-ps-worker.json"}, env: "worker:0", code: 1,
			want: []string{"job mesh-ps-worker failed (exit code 1)", "FailedTaskCount 1 has reached MinFailedTaskCount 1"}},
		"detach refused": {args: []string{"-detach", "examples/pai-v1-ps-worker.json"}, code: 2,
			want: []string{"-detach is not available with -to local"}},
		"unknown driver": {args: []string{"-to", "nosuchdriver", "examples/pai-v1-ps-worker.json"}, code: 2,
			want: []string{"driver nosuchdriver is not available"}},
		"no file": {args: nil, code: 2, want: []string{"want exactly one job FILE"}},
	} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			inRepoRoot(t)
			t.Setenv("MESH_FAIL", tc.env)
			args := append([]string{"run", "-plain", "-grace", "5s", "-run-dir", t.TempDir()}, tc.args...)
			out, code := runCLI(t, args, "")
			if code != tc.code {
				t.Errorf("exit code %d, want %d\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// buildJobshift builds the real binary: signals must reach a process of
// its own.
func buildJobshift(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "jobshift")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Ctrl-C stops every task and leaves no process behind; a task that ignores
// SIGTERM gets SIGKILL after -grace, or at once on a second Ctrl-C.
func TestRunInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	job, err := filepath.Abs(filepath.Join("testdata", "run", "sleepers.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		grace   string
		signals int
	}{
		"one Ctrl-C, SIGKILL after the grace": {grace: "1s", signals: 1},
		// With a 10-minute grace only the second Ctrl-C can end the run
		// before the test's own bound.
		"second Ctrl-C kills at once": {grace: "10m", signals: 2},
	} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			runDir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", "-plain", "-grace", tc.grace, "-run-dir", runDir, job)
			cmd.Dir = t.TempDir()
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// All started, and the stubborn task ignores SIGTERM by now.
			waitFor(t, func() bool {
				ps, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-1", "pid"))
				b, _ := os.ReadFile(filepath.Join(runDir, "stubborn-0", "attempt-1", "stdout"))
				return len(ps) == 3 && strings.Contains(string(b), "ready")
			})
			for range tc.signals {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				time.Sleep(200 * time.Millisecond) // let the first stop begin
			}
			err := cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("jobshift did not end after Ctrl-C:\n%s", out.String())
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("exit: %v, want exit code 130 (Ctrl-C)\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), "job sleepers stopped") {
				t.Errorf("no stopped verdict:\n%s", out.String())
			}
			if left, err := local.Leftovers(runDir); err != nil || len(left) > 0 {
				t.Errorf("processes left behind: %v (%v)", left, err)
			}
			b, _ := os.ReadFile(filepath.Join(runDir, "stubborn-0", "attempt-1", "exit"))
			if strings.TrimSpace(string(b)) != "137" {
				t.Errorf("stubborn-0 exit = %q, want 137 (SIGKILL)", b)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 3000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}
