package nomad

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// crashJob is a PyTorchJob whose master runs argv under restartPolicy pol.
func crashJob(pol string, backoffLimit *int, argv ...string) *jobs.Job {
	return &jobs.Job{Name: "crash", Source: jobs.Source{Format: jobs.FormatPyTorchJob, Path: "job.yaml"},
		Completion: jobs.Completion{Kind: jobs.CompletionPyTorch}, Retry: jobs.Retry{BackoffLimit: backoffLimit},
		Roles: []*jobs.Role{{Name: "Master", ReplicaType: "Master", Instances: 1, RestartPolicy: pol,
			Command:   jobs.Command{Kind: jobs.CommandArgv, Command: argv[:1], Args: argv[1:]},
			Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 256}}}}
}

// taskDir is the NOMAD_TASK_DIR runLoop gave cmd.
func taskDir(cmd *exec.Cmd) string {
	for _, e := range cmd.Env {
		if d, ok := strings.CutPrefix(e, "NOMAD_TASK_DIR="); ok {
			return d
		}
	}
	return ""
}

// loopOf renders job and returns the main task's argv and its restart
// loop's text (decoded from the template), "" when there is none; argv
// then starts at the loop.
func loopOf(t *testing.T, job *jobs.Job, opts map[string]string) ([]string, string) {
	t.Helper()
	p := plan(job, rawExecSite())
	for k, v := range opts {
		p.Options[k] = v
	}
	aj, diags := BuildJob(p, fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var main *api.Task
	for _, tk := range aj.TaskGroups[0].Tasks {
		if tk.Name == MainTask {
			main = tk
		}
	}
	argv := append([]string{main.Config["command"].(string)}, main.Config["args"].([]string)...)
	// the loop is wherever the outer wrappers (the task namespace) put it
	for i := 0; i+3 < len(argv); i++ {
		if argv[i] == "/bin/sh" && argv[i+1] == "-c" && argv[i+3] == restartArg0 {
			return argv[i:], argv[i+2]
		}
	}
	return argv, ""
}

// Which tasks get the loop: those TaskRestartDecision can restart.
func TestRestartLoopRendered(t *testing.T) {
	cases := map[string]struct {
		job      *jobs.Job
		wantLoop bool
	}{
		"OnFailure":                  {crashJob("OnFailure", nil, "sh", "-c", "exit 1"), true},
		"Never":                      {crashJob("Never", nil, "sh", "-c", "exit 1"), false},
		"backoffLimit 1: no restart": {crashJob("OnFailure", intp(1), "sh", "-c", "exit 1"), false},
		"PAI with gang":              {with(psWorker("g", "true"), func(j *jobs.Job) { j.Retry.GangAllocation = true }), false},
		"PAI without gang":           {psWorker("ng", "true"), true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			argv, loop := loopOf(t, c.job, nil)
			if got := loop != ""; got != c.wantLoop {
				t.Fatalf("restart loop rendered = %v, want %v (argv %q)", got, c.wantLoop, argv)
			}
			if c.wantLoop && (argv[0] != "/bin/sh" || argv[1] != "-c" || argv[3] != restartArg0 || strings.Contains(argv[2], "jobshift-group")) {
				t.Errorf("argv = %q, want the loop around the command, once", argv)
			}
		})
	}
	_, loop := loopOf(t, crashJob("OnFailure", nil, "true"), map[string]string{OptRestartBackoff: "300ms"})
	if !strings.Contains(loop, "_t_bo_init=300 _t_bo_max=9000\n") || !strings.Contains(loop, "_t_role=0\n") {
		t.Errorf("loop data lacks the back-off or the role:\n%.400s", loop)
	}
}

func intp(n int) *int { return &n }

func with(j *jobs.Job, f func(*jobs.Job)) *jobs.Job { f(j); return j }

// runLoop runs a rendered loop with sh as Nomad would (the task directory
// in NOMAD_TASK_DIR), the command after it, and returns the recorded runs
// (start ms, end ms, exit code) and the loop's exit status.
func runLoop(t *testing.T, loop string, argv []string, during func(*exec.Cmd)) ([][3]int64, int) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", append([]string{"-c", loop, restartArg0}, argv...)...)
	cmd.Env = append(os.Environ(), "NOMAD_TASK_DIR="+dir, "NOMAD_ALLOC_INDEX=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A loop that does not end is a failure, not a hung test; nothing of
	// it may outlive the test either.
	hung := false
	watchdog := time.AfterFunc(time.Minute, func() {
		hung = true
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	defer func() {
		watchdog.Stop()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if hung {
			t.Errorf("the loop did not end within a minute; killed")
		}
	}()
	if during != nil {
		during(cmd)
	}
	err := cmd.Wait()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	}
	b, _ := os.ReadFile(filepath.Join(dir, "jobshift-runs"))
	var runs [][3]int64
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var x [3]int64
		if _, err := fmt.Sscanf(l, "%d %d %d", &x[0], &x[1], &x[2]); err == nil {
			runs = append(runs, x)
		}
	}
	return runs, status
}

// The loop restarts as the rules say (backoffLimit 4: 3 restarts) after
// the kubelet's back-off, scaled down: 0, 200ms, 400ms. Recorded start/end
// times show each wait (lower bounds only).
func TestRestartLoopBackoff(t *testing.T) {
	argv, loop := loopOf(t, crashJob("OnFailure", intp(4), "sh", "-c", "exit 3"), map[string]string{OptRestartBackoff: "200ms"})
	runs, status := runLoop(t, loop, argv[4:], nil)
	if status != 3 {
		t.Errorf("loop exited %d, want 3 (the command's code)", status)
	}
	want := []time.Duration{0, 200 * time.Millisecond, 400 * time.Millisecond}
	if len(runs) != len(want)+1 {
		t.Fatalf("%d runs, want %d: %v", len(runs), len(want)+1, runs)
	}
	for i, w := range want {
		if gap := time.Duration(runs[i+1][0]-runs[i][1]) * time.Millisecond; gap < w {
			t.Errorf("restart %d came %s after the crash, before its back-off %s", i+1, gap, w)
		}
	}
}

// The loop follows the policy: OnFailure does not restart a success, and
// ExitCode restarts only codes ≥ 128 (here a SIGKILL death, 137).
func TestRestartLoopPolicy(t *testing.T) {
	cases := map[string]struct {
		pol        string
		script     string
		wantRuns   int
		wantStatus int
	}{
		"OnFailure, success ends":       {"OnFailure", "exit 0", 1, 0},
		"ExitCode, 1 is permanent":      {"ExitCode", "exit 1", 1, 1},
		"ExitCode, killed is restarted": {"ExitCode", `[ -e "$NOMAD_TASK_DIR/seen" ] && exit 0; touch "$NOMAD_TASK_DIR/seen"; kill -9 $$`, 2, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			argv, loop := loopOf(t, crashJob(c.pol, nil, "sh", "-c", c.script), map[string]string{OptRestartBackoff: "50ms"})
			runs, status := runLoop(t, loop, argv[4:], nil)
			var codes []int64
			for _, r := range runs {
				codes = append(codes, r[2])
			}
			if len(runs) != c.wantRuns || status != c.wantStatus {
				t.Errorf("runs %v, status %d; want %d runs, status %d", codes, status, c.wantRuns, c.wantStatus)
			}
		})
	}
}

// A stop (Nomad's kill signal) during the back-off ends the loop at once:
// no further run.
func TestRestartLoopStopDuringBackoff(t *testing.T) {
	argv, loop := loopOf(t, crashJob("OnFailure", nil, "sh", "-c", "exit 3"), map[string]string{OptRestartBackoff: "1h"})
	runs, status := runLoop(t, loop, argv[4:], func(cmd *exec.Cmd) {
		// The second run ends at once and the loop then waits an hour;
		// the runs file shows when it is there.
		for i := 0; i < 200; i++ {
			b, _ := os.ReadFile(filepath.Join(taskDir(cmd), "jobshift-runs"))
			if strings.Count(string(b), "\n") >= 2 {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
	})
	if diff := cmp.Diff(2, len(runs)); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if status != 3 {
		t.Errorf("loop exited %d, want 3 (the last run's code)", status)
	}
}

// The loop passes shellcheck as POSIX sh, with the library it runs after
// (SC2154: js_restart assigns through eval, which shellcheck cannot see).
func TestRestartLoopShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck not installed")
	}
	f := filepath.Join(t.TempDir(), "loop.sh")
	text := "#!/bin/sh\n" + completion.RestartShellData(crashJob("OnFailure", nil, "true"), completion.KubeletBackoff) +
		"_t_role=0\n" + completion.RestartShell + shRestartLoop
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("shellcheck", "-s", "sh", "-e", "SC2154", f).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// TestRestartLoopInArgs: the restart loop travels in the task's args as
// the stop wrapper does: no "${" for Nomad's interpolation, no "%{" for
// HCL, no comment lines, and dash runs the user's argv unchanged after it.
func TestRestartLoopInArgs(t *testing.T) {
	argv, loop := loopOf(t, crashJob("OnFailure", nil, "printf", "%s|", "a b", "$HOME", "'"), nil)
	for _, bad := range []string{"${", "%{", "\n#"} {
		if strings.Contains(loop, bad) {
			t.Errorf("the restart loop's code holds %q", bad)
		}
	}
	if got := argv[4:]; !cmp.Equal(got, []string{"printf", "%s|", "a b", "$HOME", "'"}) {
		t.Errorf("user argv after the loop = %q", got)
	}
	cmd := exec.Command("dash", append([]string{"-c", loop, restartArg0}, argv[4:]...)...)
	cmd.Dir = t.TempDir() // the loop keeps its runs in NOMAD_TASK_DIR, else here
	out, err := cmd.Output()
	if err != nil || string(out) != "a b|$HOME|'|" {
		t.Errorf("dash -c loop printf ... = %q, %v; want the arguments unchanged", out, err)
	}
}

// TestStopWrapInArgs: the stop wrapper travels in a raw_exec task's args
// (no file template): as `sh -c` code that Nomad's interpolation of args
// cannot change (no "${"), that HCL does not re-read as a template (no
// "%{"), that dash parses, and that runs the user's argv unchanged.
func TestStopWrapInArgs(t *testing.T) {
	for _, bad := range []string{"${", "%{", "\n#"} {
		if strings.Contains(stopGroupArg, bad) {
			t.Errorf("the stop wrapper's code holds %q", bad)
		}
	}
	if strings.Contains(stopGroupArg, "SIGTERM, the grace period") || !strings.Contains(stopGroupArg, `kill -TERM "-$_g_child"`) {
		t.Errorf("comments kept or code lost:\n%s", stopGroupArg)
	}
	out, err := exec.Command("dash", "-c", stopGroupArg, "jobshift-group", "printf", "%s|", "a b", "$HOME", "'").CombinedOutput()
	if err != nil || string(out) != "a b|$HOME|'|" {
		t.Errorf("dash -c wrapper printf ... = %q, %v; want the arguments unchanged", out, err)
	}
}
