package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
)

func runQuiet(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = realMain(args, &out, &errb)
	return out.String(), errb.String(), code
}

// Help that was asked for goes to stdout (`jobshift run -h | less`), as git
// and go print it; `help CMD` is CMD's help; each command's help names it.
func TestHelpOnStdout(t *testing.T) {
	isolate(t)
	for name, c := range commands {
		if strings.HasPrefix(c.synopsis, "(internal)") {
			continue // run by jobshift inside tasks, never by a person
		}
		for _, args := range [][]string{{name, "-h"}, {"help", name}} {
			out, errs, code := runQuiet(args...)
			want := "Usage: jobshift " + name
			if code != exitOK || errs != "" || !strings.HasPrefix(out, want) {
				t.Errorf("jobshift %s: exit %d, stdout %.60q, stderr %.60q; want exit 0, stdout starting %q, no stderr",
					strings.Join(args, " "), code, out, errs, want)
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		if out, errs, code := runQuiet(args...); code != exitOK || errs != "" || !strings.HasPrefix(out, "Usage: jobshift <command>") {
			t.Errorf("jobshift %s: exit %d, stdout %.60q, stderr %.60q", args[0], code, out, errs)
		}
	}
}

// Help after a usage error goes to stderr, nothing to stdout.
func TestHelpAfterUsageError(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"run", "-no-such-flag"}, {"validate"}, {"explain"}, {}, {"help", "nosuch"}} {
		out, errs, code := runQuiet(args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "Usage: jobshift") {
			t.Errorf("jobshift %s: exit %d, stdout %.60q, stderr %.80q; want exit 2, help on stderr only",
				strings.Join(args, " "), code, out, errs)
		}
	}
}

// Every help text that names the formats names them the same way, from one
// list, and that list holds every kind jobs/load recognises as a format.
func TestHelpFormats(t *testing.T) {
	isolate(t)
	want := formatsText()
	for _, args := range [][]string{{"-h"}, {"run", "-h"}, {"validate", "-h"}, {"convert", "-h"}, {"explain", "-h"}} {
		out, _, _ := runQuiet(args...)
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("jobshift %s: help does not list the formats as %q:\n%s", strings.Join(args, " "), want, out)
		}
	}
	kinds := []string{"TFJob", "PyTorchJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob", "MXJob", "TrainJob"}
	for _, kind := range kinds {
		doc := fmt.Sprintf("apiVersion: kubeflow.org/v1\nkind: %s\nmetadata: {name: x}\n", kind)
		if d := load.Detect([]byte(doc), "x.yaml"); d.Format != "" && !strings.Contains(want, kind) {
			t.Errorf("jobs/load detects %s (format %s) but the help's format list %q lacks it: add it to readFormats", kind, d.Format, want)
		}
	}
	for _, name := range []string{"LeinaoPAI", "MPIJob", "v1 JSON", "v2 YAML", "TFJob", "PyTorchJob"} {
		if !strings.Contains(want, name) {
			t.Errorf("format list %q lacks %s", want, name)
		}
	}
}

// `jobshift config example` prints a site config that validates as it is.
func TestConfigExample(t *testing.T) {
	isolate(t)
	out, errs, code := runQuiet("config", "example")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, diags := siteconfig.ParseConfig([]byte(out), "jobshift.hcl"); len(diags) > 0 {
		t.Errorf("config example does not validate: %s", diags.Error())
	}
	if !strings.Contains(out, "#") || !strings.Contains(out, "defaults {") {
		t.Errorf("config example is not the commented file:\n%s", out)
	}
}

// validate -to counts what it prints: the target's warnings (here the
// packed layout's over-request of a LeinaoPAI job, the unused images) are
// printed with the job's own, each with its source line, and counted, in
// text and in JSON.
func TestValidateToCountsTargetWarnings(t *testing.T) {
	isolate(t)
	out, errs, code := runQuiet("validate", "-to", "slurm", "testdata/cli/leinao-ps-worker.json")
	printed := strings.Count(errs, ": warning: ")
	if code != exitOK || printed == 0 || !strings.Contains(out, fmt.Sprintf(", %d warnings\n", printed)) {
		t.Errorf("exit %d; %d warnings printed; summary %q", code, printed, out)
	}
	if !strings.Contains(errs, "warning: Packed layout over-requests") {
		t.Errorf("no over-request warning:\n%s", errs)
	}
	for _, block := range strings.Split(errs, "testdata/cli/leinao-ps-worker.json:")[1:] {
		if !strings.Contains(block, "^") {
			t.Errorf("a diagnostic without its source excerpt:\n%s", block)
		}
	}
	out, errs, _ = runQuiet("validate", "-json", "-to", "slurm", "testdata/cli/leinao-ps-worker.json")
	if n := strings.Count(out, `"severity": "warning"`); n != printed || errs != "" || !strings.Contains(out, fmt.Sprintf(`"warning_count": %d`, n)) {
		t.Errorf("-json: %d warnings in the document (want %d), stderr %q", n, printed, errs)
	}
}

// explain takes -json as every other data command does; -format json
// still works and prints the same document.
func TestExplainJSONFlag(t *testing.T) {
	isolate(t)
	a, _, codeA := runQuiet("explain", "-json", "testdata/cli/pai-v1.json")
	b, _, codeB := runQuiet("explain", "-format", "json", "testdata/cli/pai-v1.json")
	if codeA != exitOK || codeB != exitOK || a != b || !strings.HasPrefix(a, "{") {
		t.Errorf("explain -json: exit %d %.80q; -format json: exit %d %.80q", codeA, a, codeB, b)
	}
}

// A local handle whose directory does not exist says so, not that it is a
// run directory of another jobshift version.
func TestStatusMissingLocalRun(t *testing.T) {
	isolate(t)
	dir := t.TempDir() + "/never-ran"
	_, errs, code := runQuiet("status", "local:"+dir)
	if code != exitInvalid || !strings.Contains(errs, "no such directory") || strings.Contains(errs, "version") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// Attempts are numbered from 1 wherever jobshift prints one (status did,
// run's local events said "attempt 0").
func TestAttemptNumberedFromOne(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	job := dir + "/once.json"
	if err := os.WriteFile(job, []byte(`{"jobName": "once", "image": "busybox", "taskRoles": [{"name": "main", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 64, "command": "true"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	out, errs, code := runQuiet("run", job)
	all := out + errs
	if code != exitOK || !strings.Contains(all, "attempt 1: starting 1 tasks") || strings.Contains(all, "attempt 0") {
		t.Errorf("exit %d:\n%s", code, all)
	}
	// the JSON and the run directory count the same way
	runDir := dir + "/r"
	out, _, code = runQuiet("run", "-json", "-run-dir", runDir, job)
	if code != exitOK || !strings.Contains(out, `"attempt":1`) || strings.Contains(out, `"attempt":0`) {
		t.Errorf("run -json: exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(runDir + "/main-0/attempt-1/stdout"); err != nil {
		t.Errorf("the first attempt's directory: %v", err)
	}
	out, _, _ = runQuiet("status", "-json", "local:"+runDir)
	if !strings.Contains(out, `"attempt": 1`) {
		t.Errorf("status -json:\n%s", out)
	}
	// a run directory written when events.jsonl counted from 0 reads as
	// it did: its second attempt is attempt 2
	old := dir + "/old"
	if err := os.MkdirAll(old, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"run.json":     `{"name":"once","user":"u","pid":0,"pidStart":"","started":"2026-01-01T00:00:00Z"}` + "\n",
		"events.jsonl": `{"time":"2026-01-01T00:00:00Z","attempt":0,"task":{"role":"main","index":0},"state":"failed","exitCode":1}` + "\n" + `{"time":"2026-01-01T00:00:01Z","attempt":1,"task":{"role":"main","index":0},"state":"succeeded"}` + "\n" + `{"time":"2026-01-01T00:00:02Z","attempt":1,"final":{"phase":"succeeded","exitCode":0,"reason":"done","attempts":2}}` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(old+"/"+name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errs, _ = runQuiet("status", "-json", "local:"+old)
	if !strings.Contains(out, `"attempt": 2`) {
		t.Errorf("status -json of an old run directory:\n%s%s", out, errs)
	}
}

// convert -to nomad hands over what the job needs besides itself: the
// Nomad Variable with its secrets (values as the job file gives them) and
// the ssh key, never on stdout unless asked, as a 0600 file with -o, and a
// warning naming what a hand-submitted job would wait for.
func TestConvertNomadVariable(t *testing.T) {
	isolate(t)
	job := "../../integration/slurm/testdata/secrets.yaml"
	out, errs, code := runQuiet("convert", "-to", "nomad", job)
	if code != exitOK || strings.Contains(out, "s3cr3t") || strings.Contains(errs, "s3cr3t") ||
		!strings.Contains(errs, "Nomad Variable nomad/jobs/tester~secrets (nested.key, token)") || !strings.Contains(errs, "-print-variable") {
		t.Errorf("convert: exit %d, stderr %q", code, errs)
	}
	dir := t.TempDir()
	_, errs, code = runQuiet("convert", "-to", "nomad", "-o", dir, job)
	file := dir + "/tester~secrets.var.json"
	fi, err := os.Stat(file)
	if code != exitOK || err != nil || fi.Mode().Perm() != 0o600 || !strings.Contains(errs, "nomad var put @"+file) {
		t.Fatalf("convert -o: exit %d, %v, stderr %q", code, err, errs)
	}
	var v struct {
		Path  string
		Items map[string]string
	}
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &v); err != nil || v.Path != "nomad/jobs/tester~secrets" ||
		v.Items["token"] != "s3cr3t-V4lue" || v.Items["nested.key"] != "n3sted" || len(v.Items) != 2 {
		t.Errorf("variable file: %v %s", err, b)
	}
	printed, _, code := runQuiet("convert", "-to", "nomad", "-print-variable", job)
	if code != exitOK || string(b) != printed {
		t.Errorf("-print-variable: exit %d:\n%s", code, printed)
	}
	// an MPIJob's launcher reaches its workers over the ssh emulation: the key
	out, _, _ = runQuiet("convert", "-to", "nomad", "-print-variable", "../../jobs/kubeflow/testdata/mpi_v1.yaml")
	if !strings.Contains(out, `"jobshift_ssh_key": "-----BEGIN OPENSSH PRIVATE KEY-----`) {
		t.Errorf("MPIJob variable lacks the ssh key:\n%.300s", out)
	}
}

// An unreachable target is named with what to do (NOMAD_ADDR, SLURM_CONF,
// squeue's own message); status without -to lists the reachable targets
// and says which one named in the environment did not answer.
func TestUnreachableTargetsSayWhatToDo(t *testing.T) {
	isolate(t)
	t.Setenv("NOMAD_ADDR", "http://127.0.0.1:1")
	_, errs, code := runQuiet("status", "nomad:mesh")
	if code != exitInvalid || !strings.Contains(errs, "NOMAD_ADDR=http://127.0.0.1:1") || !strings.Contains(errs, "Is the Nomad agent running") {
		t.Errorf("status nomad:mesh: exit %d, stderr %q", code, errs)
	}
	t.Chdir(t.TempDir())
	out, errs, code := runQuiet("status", "-to", "local")
	if code != exitOK || !strings.Contains(out, "no jobshift jobs") {
		t.Fatalf("status -to local: exit %d %q %q", code, out, errs)
	}
	_, errs, code = runQuiet("status")
	if code != exitOK || !strings.Contains(errs, "nomad not listed") || !strings.Contains(errs, "NOMAD_ADDR") {
		t.Errorf("status: exit %d, stderr %q (an unreachable Nomad that NOMAD_ADDR names must be said)", code, errs)
	}
}

// Colour on a terminal (a pty from script(1)): the severity of each
// diagnostic; none with NO_COLOR or -no-color, none into a pipe.
func TestColorOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to give the command a terminal")
	}
	bin := buildJobshift(t)
	job, _ := filepath.Abs("testdata/cli/tfjob-lossy.yaml")
	onTTY := func(env string, args ...string) string {
		cmd := exec.Command(script, "-qec", env+" "+bin+" validate "+strings.Join(args, " ")+" "+job, "/dev/null")
		cmd.Env = append(os.Environ(), "NO_COLOR=")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	yellow := "\033[1;33mwarning\033[0m"
	// -dialect on a Kubeflow file is a warning ("Dialect ignored") beside
	// the file's error.
	if out := onTTY("", "-dialect", "leinao"); !strings.Contains(out, yellow) || !strings.Contains(out, "\033[1;31merror\033[0m") {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	for name, out := range map[string]string{"NO_COLOR=1": onTTY("NO_COLOR=1"), "-no-color": onTTY("", "-no-color")} {
		if strings.Contains(out, "\033[") {
			t.Errorf("%s: colour:\n%q", name, out)
		}
	}
	piped, _ := exec.Command(bin, "validate", "-dialect", "leinao", job).CombinedOutput()
	if strings.Contains(string(piped), "\033[") || !strings.Contains(string(piped), "warning:") {
		t.Errorf("colour into a pipe:\n%q", piped)
	}
}

// Only the severity of a diagnostic's first line is coloured.
func TestColorDiags(t *testing.T) {
	in := "job.yaml:3:5: error: Bad\n    a detail with error: in it\n       3: x: error: y\nerror: Unknown dialect\njob.yaml:1:1: warning: W\n"
	want := "job.yaml:3:5: " + sgrRed + "error" + sgrReset + ": Bad\n    a detail with error: in it\n       3: x: error: y\n" +
		sgrRed + "error" + sgrReset + ": Unknown dialect\njob.yaml:1:1: " + sgrYellow + "warning" + sgrReset + ": W\n"
	if got := string(colorDiags([]byte(in))); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
