package slurm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// What the batch script cannot do is refused, located: an init container
// in its own image (it runs init containers on the host), a Ready
// dependency (it sees ends, not starts).
func TestStepsRefused(t *testing.T) {
	at := jobs.Pos{File: "tf.yaml", Line: 7, Col: 9}
	withInit := tfJob()
	withInit.Roles[2].Init = []jobs.InitStep{{Name: "fetch", Image: "busybox", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}}}}
	ordered := tfJob()
	ordered.Roles[2].DependsOn = []jobs.Dependency{{Role: ordered.Roles[0].Name, Status: jobs.DependsReady, Pos: at}}
	for name, c := range map[string]struct {
		j    *jobs.Job
		want string
	}{"init": {withInit, `init container "fetch"`}, "order": {ordered, "starts only once role"}} {
		site := &siteconfig.Config{Slurm: &siteconfig.SlurmConfig{Container: "apptainer"}}
		_, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: c.j, Site: site})
		d, ok := diag.Of(err)
		if !ok || len(d) != 1 || !strings.Contains(d[0].Detail, c.want) || d[0].Subject.Start.Line != 7 {
			t.Errorf("%s: want one refusal %q at line 7, got %v", name, c.want, err)
		}
	}
}

// TestLaunchAfter runs js_launch_after (sh/batch.sh) over decide.sh's
// counts under dash and bash: the waiting role's step starts once, when
// every task of the role it waits for succeeded (completion.MayStart's
// Complete), and a failed task of that role fails the attempt
// (completion.Blocked), as on the local target.
func TestLaunchAfter(t *testing.T) {
	job := tfJob()
	job.Roles[2].DependsOn = []jobs.Dependency{{Role: job.Roles[0].Name, Status: jobs.DependsComplete}}
	data := orderData(job)
	if data != "_jsh_after_2='0'\n" {
		t.Fatalf("orderData = %q", data)
	}
	setup := data + `_jsh_nroles=3 _jsh_n_0=1 _jsh_n_1=1 _jsh_n_2=2 _jsh_fname_0=chief _jsh_fname_1=ps _jsh_fname_2=worker
js_launch() { echo "launch $1"; }
js_log() { :; }
js_decide_init
`
	for _, sh := range shells {
		out, code := runSh(t, sh, shDecide+shBatch, setup+`js_launch_all
js_launch_after; echo "phase $_jsh_phase"
_jsh_ns_0=1
js_launch_after; js_launch_after; echo "phase $_jsh_phase"`)
		if want := "launch 0\nlaunch 1\nphase running\nlaunch 2\nphase running\n"; code != 0 || out != want {
			t.Errorf("%s: succeeded dependency: exit %d, output %q, want %q", sh, code, out, want)
		}
		out, code = runSh(t, sh, shDecide+shBatch, setup+`_jsh_nf_0=1
js_launch_after; echo "phase $_jsh_phase $_jsh_vcode: $_jsh_vwhy"`)
		if want := "phase failed 1: role worker can never start: it waits for role chief to complete and 1 of its tasks failed\n"; code != 0 || out != want {
			t.Errorf("%s: failed dependency: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}

// TestRunInit runs js_run_init (sh/init.sh) from initData under dash and
// bash: the steps run in order with their own variables; a failing one
// ends the task with its code and says which; an in-place restart skips
// the steps that succeeded.
func TestRunInit(t *testing.T) {
	dir := t.TempDir()
	ri := roleInfo{Role: &jobs.Role{Name: "worker", Init: []jobs.InitStep{
		{Name: "first", Env: []jobs.EnvVar{{Name: "STEP", Value: "a 'b'"}}, Command: jobs.Command{Command: []string{"/bin/sh", "-c"}, Args: []string{`printf '%s\n' "$STEP" >>"$0/log"`, dir}}},
		{Name: "second", Command: jobs.Command{Command: []string{"/bin/sh", "-c", `test -e "$0/ok" || exit 3; echo second >>"$0/log"`, dir}}},
	}}, k: 0}
	for _, sh := range shells {
		_ = os.Remove(filepath.Join(dir, "log"))
		_ = os.Remove(filepath.Join(dir, "ok"))
		sd := t.TempDir()
		script := initData(ri, &secretTable{job: &jobs.Job{}, index: map[string]int{}}) + "_jsh_sd='" + sd + "' SLURM_PROCID=1\n" +
			`js_run_init 0; echo "rc $?"; touch '` + dir + `/ok'; js_run_init 0; echo "rc $?"; echo "STEP=${STEP-unset}"`
		out, code := runSh(t, sh, shRun+shInit, script)
		if want := "rc 3\nrc 0\nSTEP=unset\n"; code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "log"))
		if want := "a 'b'\nsecond\n"; string(b) != want {
			t.Errorf("%s: the steps wrote %q, want %q (first once, then second after the restart)", sh, b, want)
		}
	}
}

// TestSecretEnv: a variable from a Kubernetes Secret is in the task data
// by number only; js_env (sh/stage.sh) reads its value from the job's
// secrets file beside the attempt's directory, under dash and bash, and
// the plain variables keep theirs.
func TestSecretEnv(t *testing.T) {
	const value = "s3cr3t 'q' $HOME"
	ri := roleInfo{Role: &jobs.Role{Name: "worker", Env: []jobs.EnvVar{
		{Name: "PLAIN", Value: "p"}, {Name: "STORE_KEY", Value: value, Secret: true}}}, k: 0}
	sec := &secretTable{job: &jobs.Job{}, index: map[string]int{}}
	data, err := envData(ri, sec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(data, "s3cr3t") {
		t.Fatalf("the task data holds the Secret's value: %s", data)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "attempt-1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secrets"), sec.file(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells {
		script := data + "_k_dir='" + dir + "/attempt-1'\n" + `js_env 0; printf '%s|%s\n' "$PLAIN" "$STORE_KEY"; env | grep -c '^_jsh_secret' || :`
		out, code := runSh(t, sh, shStage, script)
		if want := "p|" + value + "\n0\n"; code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}

// TestRunInitSecretEnv: an init container's variable from a Secret is in
// the task data by number only; js_run_init reads its value from the
// secrets file beside the attempt's directory, under dash and bash.
func TestRunInitSecretEnv(t *testing.T) {
	const value = "init s3cr3t 'q'"
	ri := roleInfo{Role: &jobs.Role{Name: "worker", Init: []jobs.InitStep{
		{Name: "fetch", Env: []jobs.EnvVar{{Name: "TOKEN", Value: value, Secret: true}, {Name: "PLAIN", Value: "p"}},
			Command: jobs.Command{Command: []string{"/bin/sh", "-c", `printf '%s|%s\n' "$PLAIN" "$TOKEN"`}}},
	}}, k: 0}
	sec := &secretTable{job: &jobs.Job{}, index: map[string]int{}}
	data := initData(ri, sec)
	if strings.Contains(data, "s3cr3t") {
		t.Fatalf("the task data holds the Secret's value: %s", data)
	}
	dir := t.TempDir()
	sd := filepath.Join(dir, "attempt-1")
	if err := os.Mkdir(sd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secrets"), sec.file(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells {
		_ = os.Remove(filepath.Join(sd, "init-0-0-0.done"))
		out, code := runSh(t, sh, shRun+shInit, data+"_jsh_sd='"+sd+"' SLURM_PROCID=0\njs_run_init 0; echo \"rc $? ${TOKEN-unset}\"")
		if want := "p|" + value + "\nrc 0 unset\n"; code != 0 || out != want {
			t.Errorf("%s: exit %d, output %q, want %q", sh, code, out, want)
		}
	}
}
