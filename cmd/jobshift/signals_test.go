package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/local"
)

// startRun starts the real binary on a testdata/run job with its own run
// directory; the caller owns stdout unless out is given.
func startRun(t *testing.T, ctx context.Context, bin, job, grace string, out io.Writer) (*exec.Cmd, string) {
	t.Helper()
	isolate(t)
	runDir := t.TempDir()
	path, err := filepath.Abs(filepath.Join("testdata", "run", job))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "run", "-plain", "-grace", grace, "-run-dir", runDir, path)
	cmd.Dir = t.TempDir()
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	// Its own process group, so that a SIGKILL to jobshift is not followed
	// by the test framework killing anything else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, runDir
}

// sleepersReady: all three sleepers started, the stubborn one ignores
// SIGTERM by now.
func sleepersReady(runDir string) func() bool {
	return func() bool {
		ps, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-1", "pid"))
		b, _ := os.ReadFile(filepath.Join(runDir, "stubborn-0", "attempt-1", "stdout"))
		return len(ps) == 3 && strings.Contains(string(b), "ready")
	}
}

func noLeftovers(runDir string) func() bool {
	return func() bool {
		left, err := local.Leftovers(runDir)
		return err == nil && len(left) == 0
	}
}

// SIGHUP (terminal or ssh session closed) and SIGQUIT (Ctrl-\) stop the job
// like SIGTERM: every task stopped, verdict printed, exit 128+signal (as a
// shell reports a death by that signal). Before, SIGHUP
// and SIGQUIT killed jobshift and left every task running.
func TestRunStopSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	// Under nohup the test inherits SIGHUP ignored, and so would jobshift,
	// which then (rightly) leaves SIGHUP alone. A signal this process
	// catches is reset to its default in the children it starts.
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
		defer signal.Reset(syscall.SIGHUP)
	}
	for name, sig := range map[string]syscall.Signal{
		"SIGHUP": syscall.SIGHUP, "SIGQUIT": syscall.SIGQUIT, "SIGTERM": syscall.SIGTERM,
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var out bytes.Buffer
			cmd, runDir := startRun(t, ctx, bin, "sleepers.json", "1s", &out)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, sleepersReady(runDir))
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(sig) {
				t.Errorf("exit: %v, want exit code %d\n%s", err, 128+int(sig), out.String())
			}
			if !strings.Contains(out.String(), "job sleepers stopped") {
				t.Errorf("no stopped verdict:\n%s", out.String())
			}
			if left, err := local.Leftovers(runDir); err != nil || len(left) > 0 {
				t.Errorf("processes left behind: %v (%v)", left, err)
			}
		})
	}
}

// SIGKILL cannot be caught, yet the tasks end: each group's supervisor sees
// jobshift's lifeline close and stops the group (the stubborn task, which
// ignores SIGTERM, by SIGKILL after -grace). Before, all three kept running.
func TestRunSIGKILLStopsTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, runDir := startRun(t, ctx, bin, "sleepers.json", "1s", io.Discard)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sleepersReady(runDir))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitFor(t, noLeftovers(runDir))
}

// `jobshift run job | head -1`: once its stdout is closed, jobshift keeps
// following the job (output is best-effort; the run directory keeps it
// all) and exits with the job's verdict. Before, it died of SIGPIPE at the
// next line and the task kept running.
func TestRunClosedStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	goFile := filepath.Join(t.TempDir(), "go")
	t.Setenv("GO_FILE", goFile)
	cmd, runDir := startRun(t, ctx, bin, "pipe.json", "1s", nil)
	cmd.Stderr = io.Discard
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	r.Close() // head -1
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("jobshift after its stdout closed (first line %q): %v, want exit 0 (the job succeeded)", line, err)
	}
	b, _ := os.ReadFile(filepath.Join(runDir, "talker-0", "attempt-1", "stdout"))
	if !strings.HasSuffix(string(b), "20000\nlast\n") {
		t.Errorf("the task's output file lacks its end: ...%q", b[max(0, len(b)-40):])
	}
	if left, err := local.Leftovers(runDir); err != nil || len(left) > 0 {
		t.Errorf("processes left behind: %v (%v)", left, err)
	}
}

// A stalled stdout (a full pipe nobody reads, a paused terminal) neither
// stalls the tasks nor delays a stop: after SIGINT every task is gone while
// stdout is still not read; the tasks ignore SIGTERM, so they end by the
// SIGKILL after -grace, or by the second SIGINT. Before, signals were only
// acted on once the pipe drained.
func TestRunStalledStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	for name, tc := range map[string]struct {
		grace   string
		signals int
	}{
		"SIGINT, SIGKILL after the grace": {grace: "1s", signals: 1},
		"second SIGINT kills at once":     {grace: "10m", signals: 2},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd, runDir := startRun(t, ctx, bin, "flood.json", tc.grace, nil)
			cmd.Stderr = io.Discard
			r, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Both tasks wrote 2 MB each, far past the pipe's 64 KiB, and
			// go on.
			waitFor(t, func() bool {
				for _, task := range []string{"flood-0", "flood-1"} {
					b, _ := os.ReadFile(filepath.Join(runDir, task, "attempt-1", "stdout"))
					if !strings.HasSuffix(string(b), "ready\n") {
						return false
					}
				}
				return true
			})
			for range tc.signals {
				if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
				time.Sleep(200 * time.Millisecond) // let the first stop begin
			}
			waitFor(t, noLeftovers(runDir))
			// Now drain, so jobshift can write its last lines and exit.
			out, _ := io.ReadAll(r)
			err = cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("exit: %v, want exit code 130 (interrupted)", err)
			}
			if !strings.Contains(string(out), "job flood stopped") {
				t.Errorf("no stopped verdict at the end of the output: ...%q", out[max(0, len(out)-300):])
			}
		})
	}
}

// Under nohup (SIGHUP ignored when jobshift starts) a hangup is not a stop:
// the user asked for the job to outlive the terminal. The SIGINT sent after
// it is the one that stops the job.
func TestRunNohupKeepsSIGHUPIgnored(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd, runDir := startRun(t, ctx, bin, "sleepers.json", "1s", &out)
	// What nohup does: ignore SIGHUP, then exec.
	cmd.Args = append([]string{"sh", "-c", `trap '' HUP; exec "$0" "$@"`}, cmd.Args...)
	cmd.Path = "/bin/sh"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, sleepersReady(runDir))
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if strings.Contains(out.String(), "hangup") || !strings.Contains(out.String(), "interrupt: stopping the job") {
		t.Errorf("want only the interrupt to stop the job:\n%s", out.String())
	}
	if left, err := local.Leftovers(runDir); err != nil || len(left) > 0 {
		t.Errorf("processes left behind: %v (%v)", left, err)
	}
}
