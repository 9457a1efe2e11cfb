package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Jobs the local driver used to fail although `validate` accepted them: a
// PAI v2 job with `<% $secrets.x %>` (bash: "secrets: unbound variable"),
// and commands over 128 KiB (exit 127, "argument list too long"; OpenPAI
// ran commands from a file).
func TestRunProgramsAsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	pad := strings.Repeat("A", 200<<10)
	// v1: the command reads itself back through $1 (the eval line's
	// argument): the count is the command's exact byte length.
	v1cmd := `printf 'len=%s\n' "$(printf '%s' "$1" | wc -c)"; : ` + pad
	v1, _ := json.Marshal(map[string]any{"jobName": "long-v1", "image": "busybox",
		"taskRoles": []any{map[string]any{"name": "w", "taskNumber": 1, "command": v1cmd}}})
	// v2: user.sh is the prelude line and the commands, one per line.
	v2cmds := []string{`printf 'len=%s\n' "$(wc -c <"$0")"`, ": " + pad}
	v2 := "protocolVersion: 2\nname: long-v2\ntype: job\nprerequisites:\n  - {protocolVersion: 2, name: img, type: dockerimage, uri: busybox}\n" +
		"taskRoles:\n  w:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands:\n" +
		"      - '" + strings.ReplaceAll(v2cmds[0], "'", "''") + "'\n      - '" + v2cmds[1] + "'\n"
	v2len := len("set -o errexit -o nounset -o pipefail\n") + len(v2cmds[0]) + 1 + len(v2cmds[1])
	dir := t.TempDir()
	for name, doc := range map[string]string{"long-v1.json": string(v1), "long-v2.yaml": v2} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	secrets, _ := filepath.Abs(filepath.Join("testdata", "run", "secrets.yaml"))
	for name, tc := range map[string]struct {
		file string
		want []string
	}{
		"v2 secrets filled in, file 0600, not in ps": {file: secrets, want: []string{
			"[worker-0] token=t0k$n v4lue\n", "[worker-0] second=b.example\n",
			"[worker-0] mode=600\n", "job secrets succeeded"}},
		"v1 command of 200 KiB": {file: filepath.Join(dir, "long-v1.json"), want: []string{
			fmt.Sprintf("[w-0] len=%d\n", len(v1cmd)), "job long-v1 succeeded"}},
		"v2 script of 200 KiB": {file: filepath.Join(dir, "long-v2.yaml"), want: []string{
			fmt.Sprintf("[w-0] len=%d\n", v2len), "job long-v2 succeeded"}},
	} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			runDir := t.TempDir()
			cmd := exec.Command(bin, "run", "-plain", "-run-dir", runDir, tc.file)
			cmd.Dir = t.TempDir()
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("run: %v\n%s", err, tail(out))
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, tail(out))
				}
			}
			// The filled-in script is gone with the task.
			if left, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-1", "user.sh")); strings.Contains(name, "secrets") && len(left) > 0 {
				t.Errorf("the script with secrets is still there: %v", left)
			}
		})
	}
}
