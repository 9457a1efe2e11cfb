package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	hcl2 "github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// Driver refusals print as file:line:col: error: like the readers' errors
// (the Slurm driver's NUL-byte and LeinaoPAI refusals printed as
// "jobshift convert: job cannot run on Slurm: ..." before, the LeinaoPAI
// one without a line).
func TestTargetDiags(t *testing.T) {
	plan := &translate.Plan{Job: &jobs.Job{Source: jobs.Source{Path: "dir/j.json"},
		NamePos: jobs.Pos{File: "dir/j.json", Line: 2, Col: 14},
		Roles:   []*jobs.Role{{Name: "w", Pos: jobs.Pos{File: "dir/j.json", Line: 5, Col: 3}}}}}
	noName := &translate.Plan{Job: &jobs.Job{Source: jobs.Source{Path: "j.json"},
		Roles: []*jobs.Role{{Name: "w", Pos: jobs.Pos{File: "j.json", Line: 5, Col: 3}}}}}
	slurm := errors.New("job cannot run on Slurm")
	cases := map[string]struct {
		err  error
		plan *translate.Plan
		want string // "file:line:col summary | detail", "" = not located
	}{
		"located":            {fmt.Errorf("%w: dir/j.json:1:49: role w: a NUL byte", slurm), plan, "dir/j.json:1:49 Job cannot run on Slurm | role w: a NUL byte"},
		"file only":          {fmt.Errorf("%w: dir/j.json: LeinaoPAI jobs bind ports", slurm), plan, "dir/j.json:2:14 Job cannot run on Slurm | LeinaoPAI jobs bind ports"},
		"file only, no name": {fmt.Errorf("%w: j.json: LeinaoPAI", slurm), noName, "j.json:5:3 Job cannot run on Slurm | LeinaoPAI"},
		"not about the file": {errors.New("registering job: connection refused"), plan, ""},
		"local LeinaoPAI refusal, no file": {fmt.Errorf("%w: every task binds 10001: %w", local.ErrLeinaoLocal, local.ErrPortConflict), plan,
			"dir/j.json:2:14 LeinaoPAI jobs need port mapping | every task binds 10001: fixed ports collide on one machine"},
		"diagnostics kept": {hcl2.Diagnostics{{Severity: hcl2.DiagError, Summary: "S", Detail: "D",
			Subject: &hcl2.Range{Filename: "x", Start: hcl2.Pos{Line: 3, Column: 4}}}}, plan, "x:3:4 S | D"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if d := targetDiags(tc.err, tc.plan); d != nil {
				s := d[0].Subject
				got = fmt.Sprintf("%s:%d:%d %s | %s", s.Filename, s.Start.Line, s.Start.Column, d[0].Summary, d[0].Detail)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}
