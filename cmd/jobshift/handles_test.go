package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

// realHome is $HOME before any test isolated it.
var realHome = os.Getenv("HOME")

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// sharedBinary builds the jobshift binary once for the tests of this file.
func sharedBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jobshift-ops")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "jobshift")
		build := exec.Command("go", "build", "-o", binPath, ".")
		// isolate() moved HOME: the module and build caches are the real one's
		build.Env = append(os.Environ(), "HOME="+realHome)
		if out, err := build.CombinedOutput(); err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runBin runs the binary to its end in dir: output and exit code.
func runBin(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sharedBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// The exit-code table of the README, one case per row, through the binary.
func TestExitCodeTable(t *testing.T) {
	isolate(t)
	bin := sharedBinary(t)
	exiter, sleepers := abs(t, "testdata/ops/exit.json"), abs(t, "testdata/run/sleepers.json")
	invalid := abs(t, "testdata/cli/tfjob-lossy.yaml")
	for name, tc := range map[string]struct {
		args []string
		env  []string
		sig  syscall.Signal // sent once the sleepers run
		want int
		says string
	}{
		"0 succeeded":               {args: []string{"run", exiter}, want: 0, says: "job exiter succeeded"},
		"deciding task's code":      {args: []string{"run", exiter}, env: []string{"EXITER_CODE=42"}, want: 42, says: "job exiter failed (exit code 42)"},
		"130 Ctrl-C":                {args: []string{"run", "-grace", "1s", sleepers}, sig: syscall.SIGINT, want: 130, says: "job sleepers stopped"},
		"143 SIGTERM":               {args: []string{"run", "-grace", "1s", sleepers}, sig: syscall.SIGTERM, want: 143, says: "job sleepers stopped"},
		"2 unknown flag":            {args: []string{"run", "-nope", exiter}, want: 2, says: "flag provided but not defined"},
		"2 missing file argument":   {args: []string{"validate"}, want: 2, says: "no job file given"},
		"2 bad flag value":          {args: []string{"validate", "-dialect", "x", exiter}, want: 2, says: "Unknown dialect"},
		"2 unknown command":         {args: []string{"frobnicate"}, want: 2, says: "unknown command"},
		"2 handle of another -to":   {args: []string{"status", "-to", "slurm", "nomad:x"}, want: 2, says: "is a nomad job, but -to says slurm"},
		"1 invalid job (validate)":  {args: []string{"validate", invalid}, want: 1, says: "error:"},
		"1 invalid job (run)":       {args: []string{"run", invalid}, want: 1, says: "error:"},
		"1 job not found (status)":  {args: []string{"status", "local:/nonexistent/run"}, want: 1, says: "not found"},
		"0 status of a job (shown)": {args: []string{"status", "-to", "local"}, want: 0, says: "no jobshift jobs"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, tc.args...)
			cmd.Dir = dir
			cmd.Env = append(append(os.Environ(), "EXITER_CODE=0"), tc.env...)
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if tc.sig != 0 {
				waitFor(t, func() bool {
					ps, _ := filepath.Glob(filepath.Join(dir, ".jobshift", "runs", "*", "*", "attempt-1", "pid"))
					return len(ps) == 3
				})
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			_ = cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != tc.want {
				t.Errorf("exit %d, want %d\n%s", got, tc.want, out.String())
			}
			if !strings.Contains(out.String(), tc.says) {
				t.Errorf("output lacks %q:\n%s", tc.says, out.String())
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the writes of a child's two
// streams and reads from the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Codes no process can exit with, and placement failures, map as the table
// says (the rest of the table is exercised through the binary above).
func TestJobExitCode(t *testing.T) {
	for _, tc := range []struct {
		res  *drivers.Result
		want int
	}{
		{&drivers.Result{Phase: completion.PhaseSucceeded}, 0},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 7}, 7},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 255}, 255},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 0}, 1},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: -1004}, 1}, // an OpenPAI platform code
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 256}, 1},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 124, Reason: "DeadlineExceeded"}, 124},
		{&drivers.Result{Phase: completion.PhaseStopped, ExitCode: 143}, 143},
		{&drivers.Result{Phase: completion.PhaseFailed, ExitCode: 1, Reason: "gang timeout: only 1 of 3 tasks were placed"}, 2},
		{nil, 1},
	} {
		if got := jobExitCode(tc.res); got != tc.want {
			t.Errorf("jobExitCode(%+v) = %d, want %d", tc.res, got, tc.want)
		}
	}
}

var submittedRE = regexp.MustCompile(`(?m)^submitted (\S+) job (\S+)$`)

// A local run's handle works from other jobshift processes: status (a
// snapshot that returns at once, text and JSON), the list, logs and stop.
func TestLocalHandleAcrossCommands(t *testing.T) {
	isolate(t)
	bin := sharedBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "-plain", "-grace", "1s", abs(t, "testdata/run/sleepers.json"))
	run.Dir = dir
	var runOut syncBuffer
	run.Stdout, run.Stderr = &runOut, &runOut
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	var handle string
	waitFor(t, func() bool {
		m := submittedRE.FindStringSubmatch(runOut.String())
		if m != nil {
			handle = m[2]
		}
		ps, _ := filepath.Glob(filepath.Join(dir, ".jobshift", "runs", "*", "*", "attempt-1", "pid"))
		return m != nil && len(ps) == 3
	})
	if !strings.HasPrefix(handle, "local:"+dir) {
		t.Fatalf("handle %q is not local:<run dir under %s>", handle, dir)
	}

	out, code := runBin(t, dir, nil, "status", handle)
	if code != 0 || !regexp.MustCompile(`(?m)^phase\s+running$`).MatchString(out) || !strings.Contains(out, "stubborn-0") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
	out, code = runBin(t, dir, nil, "status", "-json", handle)
	var st jsonStatus
	if strictDecode(t, out, &st); code != 0 || st.Handle != handle || st.Name != "sleepers" || st.User != "tester" || st.Phase != "running" || len(st.Tasks) != 3 {
		t.Errorf("status -json: exit %d, %+v", code, st)
	}
	out, code = runBin(t, dir, nil, "status", "-json", "-to", "local")
	var list []jsonStatus
	if strictDecode(t, out, &list); code != 0 || len(list) != 1 || list[0].Handle != handle {
		t.Errorf("status -json -to local: exit %d, %+v", code, list)
	}
	out, code = runBin(t, dir, nil, "status")
	if code != 0 || !strings.Contains(out, handle) || !strings.Contains(out, "sleepers") {
		t.Errorf("status (list): exit %d\n%s", code, out)
	}
	// Flags after the job argument are read as flags.
	out, code = runBin(t, dir, nil, "logs", handle, "stubborn-0", "-stderr")
	if code != 0 || strings.Contains(out, "ready") {
		t.Errorf("logs -stderr after the arguments: exit %d\n%s", code, out)
	}
	out, code = runBin(t, dir, nil, "logs", handle, "stubborn-0")
	if code != 0 || !strings.Contains(out, "ready") {
		t.Errorf("logs: exit %d\n%s", code, out)
	}
	out, code = runBin(t, dir, nil, "stop", handle)
	if code != 0 || !strings.Contains(out, "stopped "+handle) {
		t.Errorf("stop: exit %d\n%s", code, out)
	}
	_ = run.Wait()
	if got := run.ProcessState.ExitCode(); got != 143 {
		t.Errorf("run after stop from elsewhere: exit %d, want 143 (SIGTERM)\n%s", got, runOut.String())
	}
	out, code = runBin(t, dir, nil, "status", "-json", handle)
	st = jsonStatus{}
	if strictDecode(t, out, &st); code != 0 || st.Phase != "stopped" || st.ExitCode != 143 {
		t.Errorf("status after stop: exit %d, %+v", code, st)
	}
	for _, task := range st.Tasks {
		if task.State != "stopped" {
			t.Errorf("task %s-%d %s after stop", task.Role, task.Index, task.State)
		}
	}
}

// status -follow follows a local run to its end and exits with its code,
// without changing it.
func TestStatusFollowLocal(t *testing.T) {
	isolate(t)
	bin := sharedBinary(t)
	dir := t.TempDir()
	job := filepath.Join(dir, "slow.json")
	os.WriteFile(job, []byte(`{"jobName": "slow", "image": "busybox", "taskRoles": [{"name": "a", "taskNumber": 1, "command": "sleep 3; exit 5"}]}`), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "-plain", job)
	run.Dir = dir
	stdout, _ := run.StdoutPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	go io.Copy(io.Discard, stdout)
	m := submittedRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		t.Fatalf("first line %q is not the submitted handle", line)
	}
	out, code := runBin(t, dir, nil, "watch", "-interval", "200ms", m[2])
	if code != 5 || !strings.Contains(out, "a-0 running") || !strings.Contains(out, "failed (exit code 5)") {
		t.Errorf("watch: exit %d, want 5\n%s", code, out)
	}
	_ = run.Wait()
	if got := run.ProcessState.ExitCode(); got != 5 {
		t.Errorf("run: exit %d, want 5", got)
	}
}

// /dev/null is a character device, not a terminal: no status line there.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if terminalWidth(f) != nil {
		t.Error("/dev/null taken for a terminal")
	}
}
