package local

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

// Render refuses a job with every problem located: each role without a
// runnable command and each fixed-port collision (it stopped at the first,
// with the position written into the error text).
func TestRenderReportsEveryProblem(t *testing.T) {
	at := func(line, col int) jobs.Pos { return jobs.Pos{File: "j.json", Line: line, Col: col} }
	port := func(line int) []jobs.Port {
		return []jobs.Port{{Label: "http", Count: 1, BeginAt: 8080, Pos: at(line, 7)}}
	}
	job := &jobs.Job{Name: "x", NamePos: at(1, 2), Source: jobs.Source{Format: jobs.FormatPAIv1, Path: "j.json"},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{
			{Name: "a", Instances: 2, Ports: port(3), Image: "img", Command: jobs.Command{Kind: jobs.CommandArgv, Pos: at(4, 5)}},
			{Name: "b", Instances: 1, Ports: port(8), Command: jobs.Command{Kind: "perl", Pos: at(9, 5)}},
		}}
	d, _ := New(Options{RunDir: "/runs/r1", Dir: "/work", ports: func(string) portSource { return &seqPorts{next: 30000} }})
	_, err := d.Render(context.Background(), &translate.Plan{Job: job})
	for _, kind := range []error{ErrNoEntrypoint, ErrCommandKind, ErrPortConflict} {
		if !errors.Is(err, kind) {
			t.Errorf("err does not match %v", kind)
		}
	}
	ds, ok := diag.Of(err)
	if !ok {
		t.Fatalf("err %v carries no diagnostics", err)
	}
	var got []string
	for _, x := range ds {
		got = append(got, fmt.Sprintf("%d:%d %s", x.Subject.Start.Line, x.Subject.Start.Column, x.Summary))
	}
	want := []string{
		"4:5 No command",                         // role a: no command, no -docker
		"9:5 Unknown command kind",               // role b
		"3:7 Fixed ports collide on one machine", // a-0 and a-1 both want 8080
		"8:7 Fixed ports collide on one machine", // b-0 wants it too
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, err)
	}
}
