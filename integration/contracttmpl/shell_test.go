package contracttmpl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ctdep "github.com/hashicorp/consul-template/dependency"
	cttmpl "github.com/hashicorp/consul-template/template"
	"github.com/jobshift/jobshift/jobs"
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

// withExists adds to brain what nomadVarExists fetched for path: the
// Variable's items when it exists (have), nothing (a 404) when not.
func withExists(t testing.TB, brain *cttmpl.Brain, path string, have bool) {
	t.Helper()
	q, err := ctdep.NewNVGetQuery("", path)
	if err != nil {
		t.Fatal(err)
	}
	if !have {
		brain.Remember(q, nil)
		return
	}
	bq, _ := ctdep.NewNVGetQuery("", path)
	bq.EnableBlocking()
	items, ok := brain.Recall(bq)
	if !ok {
		t.Fatal("the snapshot is not in the brain")
	}
	brain.Remember(q, items)
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

// sourced is the environment a clean sh has after sourcing file the way
// env-wait.sh does (drivers/nomad/sh), less what the shell adds itself;
// the file must say it is whole.
func sourced(t *testing.T, sh, file string) (map[string]string, error) {
	t.Helper()
	run := func(script string) ([]byte, error) {
		cmd := exec.Command("env", "-i", sh, "-c", script, "sh", file)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%v: %s", err, stderr.String())
		}
		return out, nil
	}
	base, err := run(`exec env -0`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(`. "$1"; [ "$` + contract.ShellReadyVar + `" = 1 ] || exit 3; exec env -0`)
	if err != nil {
		return nil, err
	}
	parse := func(b []byte) map[string]string {
		m := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	got, shellOwn := parse(out), parse(base)
	for k, v := range shellOwn {
		if got[k] == v {
			delete(got, k)
		}
	}
	return got, nil
}

// TestSnapshotShellMatchesOracle: the sourced-file rendering of random
// jobs (GPUs, every contract, hostile literals), rendered by the real
// consul-template and sourced by dash and bash, gives every task the
// oracle's environment, byte for byte.
func TestSnapshotShellMatchesOracle(t *testing.T) {
	cases := 120
	if testing.Short() {
		cases = 30
	}
	shs := shells(t)
	dir := t.TempDir()
	checked, refused := 0, 0
	for n := range cases {
		c := contracttest.RandomNoTilde(5, n)
		jobID := "job-" + fmt.Sprint(n)
		cj, err := contract.Compile(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Compile: %v", c.Name, err)
		}
		for k, role := range c.Job.Roles {
			path := "nomad/jobs/" + jobID + "/" + role.Name
			snap := contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"}
			text, err := cj.NomadSnapshotShell(role.Name, c.Opts.Process, jobID, snap)
			if err != nil {
				if !errors.Is(err, contract.ErrShellNames) {
					t.Fatalf("case %s role %s: NomadSnapshotShell: %v", c.Name, role.Name, err)
				}
				refused++
				continue
			}
			if role.Instances == 0 {
				continue
			}
			brain := snapshot(t, c.Job, c.Topo, jobID, path, "2", c.Opts)
			withExists(t, brain, path, true)
			for _, i := range []int{0, role.Instances - 1} {
				want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: role.Name, Index: i}, c.Opts)
				if err != nil {
					t.Fatalf("case %s: Eval: %v", c.Name, err)
				}
				env := []string{"NOMAD_ALLOC_INDEX=" + fmt.Sprint(i), "NOMAD_JOB_ID=" + jobID, "NOMAD_META_jobshift_attempt=2"}
				file := filepath.Join(dir, "env.sh")
				if err := os.WriteFile(file, []byte(renderText(t, text, brain, env)), 0o600); err != nil {
					t.Fatal(err)
				}
				for _, sh := range shs {
					got, err := sourced(t, sh, file)
					if err != nil {
						t.Fatalf("case %s task %d-%d: %s cannot source the file: %v\n%s", c.Name, k, i, sh, err, text)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d, %s (-oracle +sourced):\n%s", c.Name, k, i, sh, diff)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d task environments compared, %d roles refused for their names", checked, refused)
	if checked == 0 {
		t.Fatal("no case compared")
	}
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
	withExists(t, brain, path, false)
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
	withExists(t, brain, path, true)
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
