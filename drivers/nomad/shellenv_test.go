package nomad

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEnvWaitInArgs: env-wait travels in the task's args as the stop
// wrapper does (no "${" for Nomad's interpolation, no "%{" for HCL, no
// comment lines), and so does the change script.
func TestEnvWaitInArgs(t *testing.T) {
	for name, code := range map[string]string{"env-wait": envWaitArg, "wake": envWakeArg} {
		for _, bad := range []string{"${", "%{", "\n#"} {
			if strings.Contains(code, bad) {
				t.Errorf("%s's code holds %q", name, bad)
			}
		}
	}
}

func TestEnvWaitShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck not installed")
	}
	if out, err := exec.Command("shellcheck", "-s", "sh", "sh/env-wait.sh").CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// envWaitRun starts env-wait under sh in task directory dir with a
// command that prints JS_A and its own arguments; the returned function
// waits for its end and returns what it printed.
func envWaitRun(t *testing.T, sh, dir string) func() (string, error) {
	t.Helper()
	cmd := exec.Command(sh, "-c", envWaitArg, envWaitArg0,
		"/bin/sh", "-c", `printf '%s|' "$JS_A" "$@"`, "user", "a b", "$HOME", "'")
	cmd.Env = append(os.Environ(), "NOMAD_TASK_DIR="+dir, "JS_A=before")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return func() (string, error) {
		select {
		case err := <-done:
			return out.String(), err
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			return out.String(), os.ErrDeadlineExceeded
		}
	}
}

// render writes the env file as consul-template does: whole, by rename.
func renderEnvFile(t *testing.T, dir, text string) {
	t.Helper()
	tmp := filepath.Join(dir, ".jobshift.env.sh.tmp")
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "jobshift.env.sh")); err != nil {
		t.Fatal(err)
	}
}

// wake runs the template's change script as Nomad would, in the task.
func wake(t *testing.T, sh, dir string) {
	t.Helper()
	cmd := exec.Command(sh, "-c", envWakeArg)
	cmd.Env = append(os.Environ(), "NOMAD_TASK_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("change script: %v\n%s", err, out)
	}
}

const wholeEnv = "export JS_A='it'\\''s'\n_jsh_env_ready=1\n"

// TestEnvWaitReleasedByWake: a task started before the snapshot waits
// (its file renders empty), and the change script run after the file's
// re-render releases it with the file's environment and its own argv
// unchanged; a wake-up before the file is whole does not.
func TestEnvWaitReleasedByWake(t *testing.T) {
	for _, sh := range []string{"dash", "bash"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		dir := t.TempDir()
		renderEnvFile(t, dir, "")
		wait := envWaitRun(t, sh, dir)
		fifo := filepath.Join(dir, "jobshift.env.wake")
		for i := 0; i < 500; i++ {
			if fi, err := os.Stat(fifo); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		wake(t, sh, dir) // spurious: the file is not whole
		time.Sleep(100 * time.Millisecond)
		renderEnvFile(t, dir, wholeEnv)
		wake(t, sh, dir)
		out, err := wait()
		if err != nil || out != "it's|a b|$HOME|'|" {
			t.Errorf("%s: env-wait printed %q, %v; want the file's JS_A and the argv unchanged", sh, out, err)
		}
		if strings.Contains(out, "before|") {
			t.Errorf("%s: the command ran before the file was whole", sh)
		}
	}
}

// TestEnvWaitFileAlreadyWhole: a task that starts after the snapshot
// (its first render is whole) runs at once, with no wake-up; the change
// script before env-wait made its FIFO does nothing and fails nothing.
func TestEnvWaitFileAlreadyWhole(t *testing.T) {
	dir := t.TempDir()
	wake(t, "dash", dir)
	if _, err := os.Stat(filepath.Join(dir, "jobshift.env.wake")); !os.IsNotExist(err) {
		t.Fatalf("the change script made a file: %v", err)
	}
	renderEnvFile(t, dir, wholeEnv)
	out, err := envWaitRun(t, "dash", dir)()
	if err != nil || out != "it's|a b|$HOME|'|" {
		t.Errorf("env-wait printed %q, %v", out, err)
	}
}
