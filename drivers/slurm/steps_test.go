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
	ordered.Roles[2].DependsOn = []jobs.Dependency{{Role: ordered.Roles[0].Name, Status: jobs.DependsComplete, Pos: at}}
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
