package drivertest

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// PrintedEnv is what a task printed as "env NAME=VALUE" lines: the
// training-operator kinds' examples (xgb_train.py, rendezvous.py) print
// every operator variable their process was given, and no other.
func PrintedEnv(out string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if kv, ok := strings.CutPrefix(line, "env "); ok {
			n, v, _ := strings.Cut(kv, "=")
			env[n] = v
		}
	}
	return env
}

// CheckPrintedEnv compares the variables task printed (PrintedEnv of its
// output) with the oracle's for topo: equal names and values, so a
// variable the oracle gives only other tasks (PaddleJob's POD_IP_DUMMY)
// fails as well as a missing or wrong one.
func CheckPrintedEnv(t *testing.T, job *jobs.Job, topo contract.Topology, opts contract.Options, task jobs.TaskRef, out string) {
	t.Helper()
	want, err := contract.Eval(job, topo, task, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.Map(), PrintedEnv(out)); d != "" {
		t.Errorf("%s-%d: the process's environment (-oracle +task):\n%s", task.Role, task.Index, d)
	}
}

// StandInImageJob is examples/file with its rendezvous.py command (kind:
// paddle, jax or mxnet) rewritten for an image that holds no copy of the
// repository: the task writes the program into its container first. It
// returns the path of the rewritten file, in a test directory.
func StandInImageJob(t *testing.T, file, kind string) string {
	t.Helper()
	prog, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "rendezvous.py"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(prog)
	from := `["python3", "examples/rendezvous.py", "` + kind + `"]`
	to := `["sh", "-c", "echo ` + b64 + ` | base64 -d >/tmp/rendezvous.py && exec python3 /tmp/rendezvous.py ` + kind + `"]`
	if !strings.Contains(string(src), from) {
		t.Fatalf("%s no longer runs %s", file, from)
	}
	f := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(f, []byte(strings.ReplaceAll(string(src), from, to)), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// StandInScriptJob is examples/file with its python3 examples/script
// command (a container's command list, a shell command line, or the end
// of one) rewritten, as StandInImageJob, to bring the script into the
// container. It returns the path of the rewritten file, in a test
// directory.
func StandInScriptJob(t *testing.T, file, script string) string {
	t.Helper()
	prog, err := os.ReadFile(filepath.Join(repoRoot(), "examples", script))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(prog)
	write := "echo " + b64 + " | base64 -d >/tmp/" + script
	out := strings.NewReplacer(
		`["python3", "examples/`+script+`"]`, `["sh", "-c", "`+write+` && exec python3 /tmp/`+script+`"]`,
		"- python3 examples/"+script+"\n", "- "+write+" && python3 /tmp/"+script+"\n",
		// the end of a longer command line (... exec python3 examples/x.py)
		" python3 examples/"+script+"\n", ` python3 -c "$(echo `+b64+` | base64 -d)"`+"\n",
	).Replace(string(src))
	if out == string(src) {
		t.Fatalf("%s no longer runs python3 examples/%s", file, script)
	}
	f := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}
