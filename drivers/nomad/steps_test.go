package nomad

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// Init containers and the step order are refused, located, until the
// Nomad rendering runs them: a task must not start without them.
func TestStepsRefused(t *testing.T) {
	at := jobs.Pos{File: "j.yaml", Line: 7, Col: 9}
	withInit := psWorker("x", "true")
	withInit.Roles[1].Init = []jobs.InitStep{{Name: "fetch", Pos: at, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}}}}
	ordered := psWorker("x", "true")
	ordered.Roles[1].DependsOn = []jobs.Dependency{{Role: ordered.Roles[0].Name, Status: jobs.DependsReady, Pos: at}}
	for name, c := range map[string]struct {
		j    *jobs.Job
		want string
	}{"init": {withInit, "Init containers not run on Nomad"}, "order": {ordered, "Step order not kept on Nomad"}} {
		_, diags := BuildJob(plan(c.j, rawExecSite()), fixtureContract{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) || diags[0].Subject == nil || diags[0].Subject.Start.Line != 7 {
			t.Errorf("%s: want error %q at line 7, got %v", name, c.want, diags)
		}
	}
}
