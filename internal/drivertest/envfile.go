package drivertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
// shellenv.go: export NAME='value' lines) with /bin/sh (SourcedEnv); a
// file that is not whole, or that sh cannot source, is a test error.
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
	got, err := SourcedEnv("/bin/sh", f)
	if err != nil {
		t.Errorf("%v\n%s", err, text)
	}
	return got
}

// shellOwn is, by shell, what it exports by itself in an empty
// environment (the same on every run).
var shellOwn sync.Map

// SourcedEnv is what the shell sh exports after sourcing file in an empty
// environment, as a task's env-wait does, less what sh exports by itself;
// an error when sh cannot source it or the file does not say it is whole
// (contract.ShellReady).
func SourcedEnv(sh, file string) (map[string]string, error) {
	env := func(script string) (map[string]string, error) {
		cmd := exec.Command("env", "-i", sh, "-c", script, "sh", file)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s cannot source the env file: %v: %s", sh, err, stderr.String())
		}
		m := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		return m, nil
	}
	got, err := env(`. "$1"; [ "$_jsh_env_ready" = 1 ] || { echo "not whole" >&2; exit 3; }; exec env -0`)
	if err != nil {
		return nil, err
	}
	own, ok := shellOwn.Load(sh)
	if !ok {
		m, err := env(`exec env -0`)
		if err != nil {
			return nil, err
		}
		own, _ = shellOwn.LoadOrStore(sh, m)
	}
	for k, v := range own.(map[string]string) {
		if got[k] == v {
			delete(got, k)
		}
	}
	return got, nil
}
