package drivertest

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ReadEnvFile parses a rendered Nomad env template: NAME="json string" lines
// (what the contract template writes; go-envparse reads them the same way)
// and NAME=value lines. A line without '=' is a test error.
func ReadEnvFile(t *testing.T, r io.ReadCloser) map[string]string {
	t.Helper()
	defer r.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("env line without '=': %q", line)
			continue
		}
		if strings.HasPrefix(v, `"`) {
			var s string
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Errorf("%s: %v", k, err)
			}
			v = s
		}
		out[k] = v
	}
	return out
}

// ReadShellEnvFile sources a rendered sourced-file template (drivers/nomad
// shellenv.go: export NAME='value' lines) with sh in an empty environment,
// as the task's env-wait does, and returns what it exported, less what sh
// exports by itself; a file that is not whole, or that sh cannot source,
// is a test error.
func ReadShellEnvFile(t *testing.T, r io.ReadCloser) map[string]string {
	t.Helper()
	defer r.Close()
	text, err := io.ReadAll(r)
	if err != nil {
		t.Errorf("reading the env file: %v", err)
		return nil
	}
	f := filepath.Join(t.TempDir(), "jobshift.env.sh")
	if err := os.WriteFile(f, text, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(script string) map[string]string {
		out, err := exec.Command("env", "-i", "/bin/sh", "-c", script, "sh", f).Output()
		if err != nil {
			t.Errorf("sh cannot source the env file: %v\n%s", err, text)
			return nil
		}
		m := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	got := env(`. "$1"; [ "$_jsh_env_ready" = 1 ] || { echo "not whole" >&2; exit 3; }; exec env -0`)
	for k, v := range env(`exec env -0`) {
		if got[k] == v {
			delete(got, k)
		}
	}
	return got
}
