package slurm

import (
	"context"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// Init containers and the step order are refused, located, until the batch
// script runs them: a task must not start without them.
func TestStepsRefused(t *testing.T) {
	at := jobs.Pos{File: "tf.yaml", Line: 7, Col: 9}
	withInit := tfJob()
	withInit.Roles[2].Init = []jobs.InitStep{{Name: "fetch", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}}}}
	ordered := tfJob()
	ordered.Roles[2].DependsOn = []jobs.Dependency{{Role: ordered.Roles[0].Name, Status: jobs.DependsReady, Pos: at}}
	for name, c := range map[string]struct {
		j    *jobs.Job
		want string
	}{"init": {withInit, `init container "fetch"`}, "order": {ordered, "starts only once role"}} {
		_, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: c.j, Site: &siteconfig.Config{}})
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
