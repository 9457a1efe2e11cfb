package contracttmpl

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ctdep "github.com/hashicorp/consul-template/dependency"
	cttmpl "github.com/hashicorp/consul-template/template"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// shells are the /bin/sh a raw_exec or exec task may find: dash (Debian,
// Ubuntu) and bash (most others).
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"dash", "bash"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("no dash or bash")
	}
	return out
}

// withoutVariable adds to brain what nomadVarExists fetched for path
// before the Variable exists: nothing (a 404).
func withoutVariable(t testing.TB, brain *cttmpl.Brain, path string) {
	t.Helper()
	q, err := ctdep.NewNVGetQuery("", path)
	if err != nil {
		t.Fatal(err)
	}
	brain.Remember(q, nil)
}

// renderText executes a template as the client would and returns its
// output; it fails the test on missing dependencies (the task would wait).
func renderText(t testing.TB, text string, brain *cttmpl.Brain, env []string) string {
	t.Helper()
	tmpl, err := cttmpl.NewTemplate(&cttmpl.NewTemplateInput{Contents: text, FunctionDenylist: []string{"plugin", "writeToFile", "executeTemplate"}})
	if err != nil {
		t.Fatalf("template does not parse: %v", err)
	}
	res, err := tmpl.Execute(&cttmpl.ExecuteInput{Brain: brain, Env: env})
	if err != nil {
		t.Fatalf("template does not execute: %v", err)
	}
	if res.Missing.Len() > 0 {
		t.Fatalf("dependencies missing: %v", res.Missing.List())
	}
	return string(res.Output)
}

// shellCase is the first random job whose first role has only shell
// names, that role's snapshot path in job "j" and its sourced-file text.
func shellCase(t *testing.T) (c contracttest.Case, role, path, text string) {
	t.Helper()
	for n := range 50 {
		c = contracttest.RandomNoTilde(6, n)
		role = c.Job.Roles[0].Name
		path = "nomad/jobs/j/" + role
		cj, err := contract.Compile(c.Job, c.Opts)
		if err != nil {
			t.Fatal(err)
		}
		text, err = cj.NomadSnapshotShell(role, c.Opts.Process, "j", contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"})
		if err == nil {
			return c, role, path, text
		}
		if !errors.Is(err, contract.ErrShellNames) {
			t.Fatal(err)
		}
	}
	t.Fatal("no random job with shell names")
	return
}

// TestSnapshotShellWaitsUnblocked: before the snapshot exists the file
// renders at once (nothing for Nomad to wait on) and says it is not whole.
func TestSnapshotShellWaitsUnblocked(t *testing.T) {
	_, _, path, text := shellCase(t)
	brain := cttmpl.NewBrain()
	withoutVariable(t, brain, path)
	out := renderText(t, text, brain, []string{"NOMAD_ALLOC_INDEX=0", "NOMAD_JOB_ID=j", "NOMAD_META_jobshift_attempt=0"})
	if strings.TrimSpace(out) != "" {
		t.Fatalf("rendered before the snapshot exists:\n%s", out)
	}
}

// TestSnapshotShellOfAnotherAttemptFailsTask: a snapshot left by an
// earlier attempt makes the sourcing shell exit 1 with the reason, not
// start the command with old peers.
func TestSnapshotShellOfAnotherAttemptFailsTask(t *testing.T) {
	c, _, path, text := shellCase(t)
	brain := snapshot(t, c.Job, c.Topo, "j", path, "0", c.Opts)
	file := filepath.Join(t.TempDir(), "env.sh")
	out := renderText(t, text, brain, []string{"NOMAD_ALLOC_INDEX=0", "NOMAD_JOB_ID=j", "NOMAD_META_jobshift_attempt=1"})
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells(t) {
		cmd := exec.Command(sh, "-c", `. "$1"; echo started`, "sh", file)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || stdout.Len() > 0 {
			t.Fatalf("%s: %v, stdout %q; want exit 1 before the command", sh, err, stdout.String())
		}
		want := "jobshift-contract: topology snapshot " + path + " is of attempt 0, not of this task's attempt 1\n"
		if stderr.String() != want {
			t.Fatalf("%s: stderr %q, want %q", sh, stderr.String(), want)
		}
	}
}

// TestForgedSnapshotShellFailsTask: a forged address (a newline and more
// in it) makes the sourcing shell exit 1 with the reason, before the
// command and before any variable.
func TestForgedSnapshotShellFailsTask(t *testing.T) {
	c, _, path, text := shellCase(t)
	topo := c.Topo
	topo.Roles = append([]contract.RoleTopology(nil), c.Topo.Roles...)
	tasks := append([]contract.TaskTopology(nil), topo.Roles[0].Tasks...)
	tasks[0].Addr = "10.0.0.1\nProxyCommand sh -c id"
	topo.Roles[0].Tasks = tasks
	brain := snapshot(t, c.Job, topo, "j", path, "0", c.Opts)
	file := filepath.Join(t.TempDir(), "env.sh")
	out := renderText(t, text, brain, []string{"NOMAD_ALLOC_INDEX=0", "NOMAD_JOB_ID=j", "NOMAD_META_jobshift_attempt=0"})
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells(t) {
		cmd := exec.Command(sh, "-c", `. "$1"; echo started`, "sh", file)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 || stdout.Len() > 0 {
			t.Fatalf("%s: %v, stdout %q; want exit 1 before the command", sh, err, stdout.String())
		}
		if want := "jobshift-contract: topology snapshot " + path + " item a0: not a list of addresses\n"; stderr.String() != want {
			t.Fatalf("%s: stderr %q, want %q", sh, stderr.String(), want)
		}
	}
}
