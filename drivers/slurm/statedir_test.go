package slurm

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/internal/otheruser"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// runBatch runs the rendered batch script of job 7 of paiJob (with a
// secret) with srun and scontrol faked on PATH, the state under state; the
// faked node address is refused by the contract's shared stage, so the
// script ends with 97 once js_main made its directories and js_prepare
// copied the secrets.
func runBatch(t *testing.T, state string, env ...string) (string, int) {
	t.Helper()
	job := paiJob()
	job.Secrets = map[string]any{"token": "s3cr3t"}
	job.Roles[1].Command.Script = "login --token '<% $secrets.token %>'"
	a, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: job, User: "alice",
		Site: &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{Layout: "packed"}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	files := map[string]string{
		"bin/srun":     "#!/bin/sh\nexit 0\n",
		"bin/scontrol": "#!/bin/sh\nprintf 'NodeName=n1 NodeAddr=10.0.0.1;x\\n'\n",
	}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("/bin/sh", filepath.Join(dir, "ps-worker.sbatch"))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"),
		"SLURM_SUBMIT_DIR="+dir, "JOBSHIFT_STATE_DIR="+state, "JOBSHIFT_SLURM_LIB=", "JOBSHIFT_SECRETS=",
		"SLURM_JOB_ID=7", "SLURM_JOB_NODELIST=n1", "SLURM_TASKS_PER_NODE=5", "SLURM_RESTART_COUNT=", "SLURM_CLUSTER_NAME=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the script: %v\n%s", err, out)
	}
	return string(out), ee.ExitCode()
}

// A cluster recreated (job IDs start again at 1), or a second cluster
// submitted to from the same directory: a directory of the job's name is
// an earlier job's. The new job makes its own, keyed by cluster name and
// ID, with its submission's token; the earlier one is moved aside.
func TestStateDirEarlierJob(t *testing.T) {
	state := t.TempDir()
	old := filepath.Join(state, "ci-7")
	os.MkdirAll(filepath.Join(old, "attempt-0"), 0o700)
	os.WriteFile(filepath.Join(old, "attempt-0", "rc.1.0"), []byte("0\n"), 0o600)
	os.WriteFile(filepath.Join(old, "token"), []byte("earlier\n"), 0o600)
	out, code := runBatch(t, state, "SLURM_CLUSTER_NAME=ci", "JOBSHIFT_STATE_TOKEN=this-submission")
	if code != 97 || !strings.Contains(out, "the contract's shared stage failed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(old, "token")); string(b) != "this-submission\n" {
		t.Errorf("token in %s: %q, want this submission's", old, b)
	}
	if _, err := os.Stat(filepath.Join(old, "attempt-0", "rc.1.0")); err == nil {
		t.Error("the earlier job's exit code is read as this job's")
	}
	if aside, _ := filepath.Glob(old + ".old.*"); len(aside) != 1 {
		t.Errorf("the earlier job's directory was not kept aside: %v", aside)
	}
}

// The watcher of a job that has not started yet finds the earlier job's
// directory at the job's name: it reports none of its tasks as this job's.
func TestInspectEarlierJobsState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "ci-7")
	adir := filepath.Join(state, "attempt-0")
	os.MkdirAll(adir, 0o700)
	for f, v := range map[string]string{"rc.0.0": "0\n", "started.0.0": "", "rc.1.0": "143\n", "stopped.1": "", "verdict": "succeeded 0 x\nearlier\n"} {
		os.WriteFile(filepath.Join(adir, f), []byte(v), 0o600)
	}
	os.WriteFile(filepath.Join(state, "token"), []byte("earlier\n"), 0o600)
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "scontrol"), []byte("#!/bin/sh\necho 'JobId=7 JobName=j JobState=PENDING Reason=Priority Restarts=0'\n"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	h := drivers.Handle{Driver: Name, ID: "7", Meta: map[string]string{"state": state, "roles": "ps,worker", "counts": "1,1",
		"token": "this-submission", "script": filepath.Join(bin, "none")}}
	st, err := New(drivers.Config{}).Inspect(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range st.Tasks {
		if task.State != completion.Pending {
			t.Errorf("%s-%d: %s (%d), from an earlier job's directory", task.Role, task.Index, task.State, task.ExitCode)
		}
	}
}

// Another user planted the job's directory in a state directory all can
// write (a site state_dir on a shared file system), or owns the state
// directory: the job refuses it before writing anything there.
func TestStateDirOfAnotherUser(t *testing.T) {
	other := otheruser.Get(t)
	open := otheruser.SharedDir(t) // root's, 1777: what a site might make
	other.Sh(t, "mkdir -m 777 "+open+"/7")
	theirs := filepath.Join(open, "theirs")
	other.Sh(t, "mkdir -m 755 "+theirs)
	for state, want := range map[string]string{open: "is writable by other users", theirs: "belongs to another user"} {
		out, code := runBatch(t, state)
		if code != 97 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want 97 and %q:\n%s", state, code, want, out)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(open, "7")); len(left) != 0 {
		t.Errorf("the job wrote into the other user's directory: %v", left)
	}
}

// The secrets copy in the shared state directory does not outlive the
// attempt, even one that fails in its preparation.
func TestSecretsDroppedAfterAttempt(t *testing.T) {
	state := t.TempDir()
	out, code := runBatch(t, state)
	if code != 97 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(state, "7", "attempt-1", "topology")); err != nil {
		t.Fatalf("the attempt did not get as far as its preparation: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(state, "7", "secrets")); err == nil {
		t.Errorf("the secrets copy is left after the attempt: %q", b)
	}
}

// Attempt directories count from 1, as the local driver's do: Slurm's
// first run (SLURM_RESTART_COUNT 0) writes attempt-1 and says so, its
// first requeue attempt-2; the job directory marks the numbering.
func TestStateDirAttemptsFromOne(t *testing.T) {
	state := t.TempDir()
	for restart, want := range []string{"attempt-1", "attempt-2"} {
		out, code := runBatch(t, state, "SLURM_RESTART_COUNT="+[]string{"", "1"}[restart])
		if code != 97 {
			t.Fatalf("restart %d: exit %d:\n%s", restart, code, out)
		}
		if _, err := os.Stat(filepath.Join(state, "7", want, "topology")); err != nil {
			t.Errorf("restart %d: %v\n%s", restart, err, out)
		}
		if line := "attempt " + strings.TrimPrefix(want, "attempt-") + " of job 7"; !strings.Contains(out, line) {
			t.Errorf("restart %d: the log does not say %q:\n%s", restart, line, out)
		}
	}
	if _, err := os.Stat(filepath.Join(state, "7", "attempt-0")); err == nil {
		t.Error("an attempt-0 directory was written")
	}
	if b, err := os.ReadFile(filepath.Join(state, "7", "attempts-from")); err != nil || string(b) != "1\n" {
		t.Errorf("attempts-from: %q %v, want 1", b, err)
	}
}

// status and logs read the attempt Slurm runs (its Restarts) in the
// directory the batch library of the job wrote: attempt-N+1 where the job
// directory says its attempts count from 1, attempt-N in a job directory
// an older library wrote (no attempts-from).
func TestInspectAttemptNumbering(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "scontrol"), []byte("#!/bin/sh\necho 'JobId=7 JobName=j JobState=RUNNING Reason=None Restarts=1'\n"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	for _, tc := range []struct {
		name, from, current, earlier string
	}{
		{"new", "1\n", "attempt-2", "attempt-1"},
		{"old", "", "attempt-1", "attempt-0"},
	} {
		state := filepath.Join(t.TempDir(), "7")
		// the earlier attempt's task failed; the current one's runs
		files := map[string]string{tc.earlier + "/started.0.0": "", tc.earlier + "/rc.0.0": "1\n", tc.earlier + "/worker-0.out": "earlier\n",
			tc.current + "/started.0.0": "", tc.current + "/worker-0.out": "current\n", "token": "t\n"}
		if tc.from != "" {
			files["attempts-from"] = tc.from
		}
		for f, v := range files {
			mustOK(t, os.MkdirAll(filepath.Dir(filepath.Join(state, f)), 0o700))
			mustOK(t, os.WriteFile(filepath.Join(state, f), []byte(v), 0o600))
		}
		h := drivers.Handle{Driver: Name, ID: "7", Meta: map[string]string{"state": state, "roles": "worker", "counts": "1",
			"token": "t", "script": filepath.Join(bin, "none")}}
		d := New(drivers.Config{})
		st, err := d.Inspect(context.Background(), h)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Tasks) != 1 || st.Tasks[0].State != completion.Running || st.Attempt != 1 {
			t.Errorf("%s: attempt %d, tasks %+v, want attempt 1 (the second) with worker-0 running", tc.name, st.Attempt, st.Tasks)
		}
		rc, err := d.Logs(context.Background(), h, drivers.LogOptions{Task: &jobs.TaskRef{Role: "worker", Index: 0}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "current\n" {
			t.Errorf("%s: logs %q, want the current attempt's", tc.name, b)
		}
	}
}
