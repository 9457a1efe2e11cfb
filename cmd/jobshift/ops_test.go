package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestControllerLogJSON: with -log-json every line the controller writes
// is one JSON object with go-hclog's keys (here: the record of a Nomad
// address that refuses connections).
func TestControllerLogJSON(t *testing.T) {
	bin := buildJobshift(t)
	cmd := exec.Command(bin, "controller", "-log-json", "-every", "1s")
	cmd.Env = append(os.Environ(), "NOMAD_ADDR=http://127.0.0.1:1", "JOBSHIFT_CONFIG=/dev/null")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the controller wrote nothing and exited")
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("not JSON: %q: %v", l, err)
		}
		for _, k := range []string{"@timestamp", "@level", "@message", "@module", "error"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("record lacks %q: %s", k, l)
			}
		}
		if rec["@level"] != "error" || rec["@message"] != "listing jobs" {
			t.Errorf("record %s, want the error of listing jobs", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no log line within 30s")
	}
}

// TestConvertSbatchArg: -sbatch-arg reaches the script as an #SBATCH line
// after the site's, and an option jobshift writes itself is refused with
// exit code 1 before anything is rendered.
func TestConvertSbatchArg(t *testing.T) {
	bin := buildJobshift(t)
	job, _ := filepath.Abs("../../examples/pai-v1-ps-worker.json")
	cfg := filepath.Join(t.TempDir(), "site.hcl")
	os.WriteFile(cfg, []byte("slurm { sbatch = [\"--constraint=fast\"] }\n"), 0o644)
	out, err := exec.Command(bin, "convert", "-to", "slurm", "-config", cfg, "-sbatch-arg", "--qos=high", job).Output()
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	s := string(out)
	site, run := strings.Index(s, "#SBATCH --constraint=fast\n"), strings.Index(s, "#SBATCH --qos=high\n")
	if site < 0 || run < site {
		t.Errorf("want the site's directive, then the run's; script head:\n%.1500s", s)
	}
	if !strings.Contains(s, "#SBATCH --comment=jobshift:pai-v1:"+job+"\n") {
		t.Errorf("no --comment naming the source file")
	}
	if !strings.Contains(s, "\njs_main \"$@\"\n") || !strings.Contains(s, "\njs_hostlist() {") {
		t.Errorf("convert to stdout must inline the library (one file that runs with plain sbatch)")
	}
	cmd := exec.Command(bin, "convert", "-to", "slurm", "-sbatch-arg", "--ntasks=3", job)
	msg, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || !strings.Contains(string(msg), "--ntasks is written by jobshift") {
		t.Errorf("-sbatch-arg --ntasks=3: %v\n%s", err, msg)
	}
}

// TestBashCompletion sources `jobshift completion bash` in bash and asks
// it what it would offer: command names, a command's flags (from its own
// FlagSet), the targets after -to.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := buildJobshift(t)
	script, err := exec.Command(bin, "completion", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(bin)
	if filepath.Base(bin) != "jobshift" {
		dir = t.TempDir()
		if err := os.Symlink(bin, filepath.Join(dir, "jobshift")); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]string{
		"jobshift ru":            "run",
		"jobshift run -sb":       "-sbatch-arg",
		"jobshift run -to sl":    "slurm",
		"jobshift controller -l": "-log-json -log-level",
	}
	for line, want := range cases {
		words := strings.Fields(line)
		prog := string(script) + fmt.Sprintf("\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n_jobshift\necho \"${COMPREPLY[*]}\"\n", line, len(words)-1)
		cmd := exec.Command(bash, "-c", prog)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%q completes to %q, want %q", line, got, want)
		}
	}
}

// TestFlagsAfterFile: flags after the file name are flags, "--" ends them,
// "-" stays a file name (standard input).
func TestFlagsAfterFile(t *testing.T) {
	cases := []struct {
		args  []string
		files []string
		to    string
	}{
		{[]string{"job.yaml", "-to", "slurm"}, []string{"job.yaml"}, "slurm"},
		{[]string{"-to", "nomad", "a", "b", "-to", "slurm"}, []string{"a", "b"}, "slurm"},
		{[]string{"-", "-to", "slurm"}, []string{"-"}, "slurm"},
		{[]string{"a", "--", "-to", "x"}, []string{"a", "-to", "x"}, "local"},
	}
	for _, tc := range cases {
		fs := newFlagSet("t", "", io.Discard)
		to := fs.String("to", "local", "")
		if _, ok := parseFlags(fs, tc.args); !ok {
			t.Fatalf("%q: parse failed", tc.args)
		}
		if d := cmp.Diff(tc.files, fs.Args()); d != "" || *to != tc.to {
			t.Errorf("%q: files (-want +got) %s, -to %q want %q", tc.args, d, *to, tc.to)
		}
	}
}
