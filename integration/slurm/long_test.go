package slurm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// img is the prerequisite PAI v2 roles name (the site runs tasks on the host).
const img = "prerequisites:\n  - {type: dockerimage, name: img, uri: busybox}\n"

// writeJob writes a job file into a test directory.
func writeJob(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLongCommands: a 200 KiB command makes the task program longer than
// one environment string or argument may be (128 KiB). It used to travel in
// one environment variable, so every command of the batch script failed
// with E2BIG ("cannot create the state directory"); now the program and
// the command travel as files and the job succeeds with the bytes intact.
func TestLongCommands(t *testing.T) {
	needCluster(t)
	lit := strings.Repeat("0123456789abcdef", 200<<10/16) // 200 KiB, no quote
	v2 := "protocolVersion: 2\nname: long-v2\ntype: job\njobRetryCount: 0\n" + img + "taskRoles:\n  worker:\n    instances: 2\n    dockerImage: img\n" +
		"    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n    commands:\n" +
		"      - x='" + lit + "'\n      - echo \"len=${#x} tail=${x%%????????????????} $-\"\n"
	v1 := "{\"jobName\": \"long-v1\", \"image\": \"busybox\", \"jobRetryCount\": 0, \"taskRoles\": [{\"name\": \"w\", \"taskNumber\": 1, " +
		"\"cpuNumber\": 1, \"memoryMB\": 256, \"command\": \"x='" + lit + "'; echo len=${#x}\"}]}\n"
	cases := map[string]struct {
		file, out string
		want      string
	}{
		// 204800 bytes; ${x%%pattern} removed the last 16 bytes → the
		// rest ends where the literal's 12800th repetition begins; errexit,
		// nounset and pipefail of OpenPAI's user.sh are on (flags e and u)
		"pai v2 script": {writeJob(t, "long.yaml", v2), "worker-%d.out", ""},
		"pai v1 eval":   {writeJob(t, "long.json", v1), "w-%d.out", "len=204800\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := submit(t, loadPlan(t, tc.file, nil), 3*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final = %+v", r.final)
			}
			b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", fmt.Sprintf(tc.out, 0)))
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			if tc.want != "" && got != tc.want {
				t.Errorf("printed %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				f := strings.Fields(got)
				if len(f) != 3 || f[0] != "len=204800" || f[1] != "tail="+lit[:len(lit)-16] || !strings.Contains(f[2], "e") || !strings.Contains(f[2], "u") {
					t.Errorf("printed %.80q... %q", got, f[len(f)-1])
				}
			}
		})
	}
}

// TestSecretsKeepUmask: a PAI v2 command with secrets runs with the site's
// umask like one without; only the rendered user.sh is private (the whole
// stage used to run under umask 077, so every checkpoint was private).
func TestSecretsKeepUmask(t *testing.T) {
	needCluster(t)
	old := syscall.Umask(0o022) // sbatch hands its umask to the job
	defer syscall.Umask(old)
	job := "protocolVersion: 2\nname: umask\ntype: job\njobRetryCount: 0\nsecrets: {token: s3cr3t}\n" + img + "taskRoles:\n" +
		"  plain:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n    commands: [umask]\n" +
		"  secret:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n" +
		"    commands: ['test \"<% $secrets.token %>\" = s3cr3t', umask, 'ls -l \"$0\" | cut -c1-10']\n"
	r := submit(t, loadPlan(t, writeJob(t, "umask.yaml", job), nil), 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(r.state, "attempt-1", f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("plain-0.out"); got != "0022\n" {
		t.Errorf("plain role: umask %q, want 0022", got)
	}
	// the secret-rendering file itself stays 0600
	if got := read("secret-0.out"); got != "0022\n-rw-------\n" {
		t.Errorf("secret role printed %q, want umask 0022 and a -rw------- user.sh", got)
	}
}
