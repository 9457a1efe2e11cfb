package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// zeros is an endless standard input.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// The real binary refuses inputs past the read limits with a located error
// instead of reading on until it runs out of memory (validate /dev/zero,
// an endless pipe) or validating a 1e9-task job that convert never finishes.
func TestReadLimitsBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	big := filepath.Join(t.TempDir(), "big.json")
	job := "{\"jobName\": \"big\", \"image\": \"ubuntu\",\n\"taskRoles\": [{\"name\": \"w\", \"command\": \"true\",\n  \"taskNumber\": 1e9}]}\n"
	if err := os.WriteFile(big, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args  []string
		stdin io.Reader
		want  string
	}{
		"dev zero":      {[]string{"validate", "/dev/zero"}, nil, "/dev/zero:1:1572865: error: File too large"},
		"endless stdin": {[]string{"validate", "-"}, zeros{}, "-:1:1572865: error: File too large"},
		"1e9 validate":  {[]string{"validate", big}, nil, big + ":3:17: error: Too many tasks"},
		"1e9 convert":   {[]string{"convert", "-to", "nomad", big}, nil, big + ":3:17: error: Too many tasks"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = tc.stdin
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit %d (%v), want 1", code, err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out.String())
			}
		})
	}
}

// convert -to slurm -o DIR writes the secrets file fresh with 0600: a
// world-readable file already there is replaced (its mode used to be kept),
// a symlink placed there is replaced, not followed (the secrets used to land
// in the link's target).
func TestConvertSecretsFileFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	job, err := filepath.Abs("../../integration/slurm/testdata/secrets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(t *testing.T, dir, secrets string) (victim string){
		"world-readable file": func(t *testing.T, dir, secrets string) string {
			mustOK(t, os.WriteFile(secrets, []byte("old"), 0o644))
			mustOK(t, os.Chmod(secrets, 0o644))
			return ""
		},
		"symlink": func(t *testing.T, dir, secrets string) string {
			victim := filepath.Join(dir, "victim")
			mustOK(t, os.WriteFile(victim, []byte("victim"), 0o644))
			mustOK(t, os.Symlink(victim, secrets))
			return victim
		},
	}
	for name, prep := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			secrets := filepath.Join(dir, "secrets.sbatch.secrets")
			victim := prep(t, dir, secrets)
			out, err := exec.Command(bin, "convert", "-to", "slurm", "-o", dir, job).CombinedOutput()
			if err != nil {
				t.Fatalf("convert: %v\n%s", err, out)
			}
			fi, err := os.Lstat(secrets)
			mustOK(t, err)
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("secrets file is %v, want a regular -rw-------", fi.Mode())
			}
			if b, _ := os.ReadFile(secrets); !strings.Contains(string(b), "s3cr3t-V4lue") {
				t.Errorf("secrets file lacks the secret: %q", b)
			}
			if victim != "" {
				if b, _ := os.ReadFile(victim); string(b) != "victim" {
					t.Errorf("the symlink's target was overwritten: %q", b)
				}
			}
		})
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// convert -to nomad keeps decomposed Unicode as written (it wrote é for
// e + U+0301 where nomad-json and local kept the bytes).
func TestConvertNomadHCLKeepsUnicode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	job := filepath.Join(t.TempDir(), "nfd.yaml")
	const nfd = "caf" + "e\u0301"
	src := "protocolVersion: 2\nname: nfd\ntype: job\nprerequisites:\n  - {type: dockerimage, name: img, uri: busybox}\n" +
		"taskRoles:\n  w:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}\n" +
		"    commands: ['echo " + nfd + "']\n"
	mustOK(t, os.WriteFile(job, []byte(src), 0o644))
	for _, to := range []string{"nomad", "nomad-json"} {
		out, err := exec.Command(bin, "convert", "-to", to, job).Output()
		if err != nil {
			t.Fatalf("convert -to %s: %v", to, err)
		}
		if !bytes.Contains(out, []byte("echo "+nfd)) || bytes.Contains(out, []byte("caf\u00e9")) {
			t.Errorf("-to %s does not carry %+q unchanged", to, nfd)
		}
	}
}

// A target's refusal prints located, like a reader's error (it printed as
// "jobshift convert: job cannot run on Slurm: <file>:1:49: ..."), with the
// source line.
func TestConvertRefusalLocated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	bin := buildJobshift(t)
	job := filepath.Join(t.TempDir(), "nul.json")
	src := `{"jobName":"x","image":"i","taskRoles":[{"name":"w","taskNumber":1,"cpuNumber":1,"memoryMB":10,"command":"a\u0000b"}]}`
	mustOK(t, os.WriteFile(job, []byte(src), 0o644))
	cmd := exec.Command(bin, "convert", "-to", "slurm", job)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil {
		t.Fatal("convert accepted a NUL byte in the command")
	}
	// 1:49 is the role name, where the driver locates the role (counted by hand)
	want := job + ":1:49: error: Job cannot run on Slurm\n    Role w: a command or environment value contains a NUL byte"
	if !strings.HasPrefix(errb.String(), want) {
		t.Errorf("stderr %q, want it to start with %q", errb.String(), want)
	}
}
