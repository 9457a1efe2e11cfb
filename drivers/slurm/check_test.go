package slurm

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// Render refuses a job with every problem located, not only the first
// (it stopped at the first, with the position inside its error text).
func TestRenderReportsEveryProblem(t *testing.T) {
	at := func(line, col int) jobs.Pos { return jobs.Pos{File: "tf.yaml", Line: line, Col: col} }
	job := tfJob()
	job.NamePos = at(4, 9)
	chief, ps, worker := job.Roles[0], job.Roles[1], job.Roles[2]
	chief.Pos = at(10, 5)
	chief.Env = []jobs.EnvVar{{Name: "my.var", Value: "1", Pos: at(14, 15)}, {Name: "B", Value: "x\x00y", Pos: at(15, 15)}}
	ps.Command = jobs.Command{Kind: jobs.CommandArgv, Pos: at(22, 13)}
	ps.Image = ""
	worker.Command = jobs.Command{Kind: jobs.CommandArgv, Args: []string{"--x"}, Pos: at(30, 13)}
	worker.Command.Command = nil
	worker.Image = ""

	_, err := New(drivers.Config{}).Render(context.Background(), &translate.Plan{Job: job, Site: &siteconfig.Config{}})
	if !errors.Is(err, ErrJob) {
		t.Fatalf("err = %v, want ErrJob", err)
	}
	d, ok := diag.Of(err)
	if !ok {
		t.Fatalf("err %v carries no diagnostics", err)
	}
	var got []string
	for _, x := range d {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", x.Subject.Filename, x.Subject.Start.Line, x.Subject.Start.Column, x.Summary))
	}
	want := []string{
		"tf.yaml:10:5 Job cannot run on Slurm",  // NUL byte: at the role
		"tf.yaml:14:15 Job cannot run on Slurm", // my.var
		"tf.yaml:22:13 Job cannot run on Slurm", // ps: no command, no image
		"tf.yaml:30:13 Job cannot run on Slurm", // worker: args only, no image
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, err)
	}
}
