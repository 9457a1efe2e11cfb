package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	hcl2 "github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// targetDiags turns a driver's refusal into diagnostics, so every refusal
// prints as `file:line:col: error: ...` like the readers' errors. Drivers
// that return hcl.Diagnostics keep them. Others write errors such as
// "job cannot run on Slurm: job.json:1:49: role w: ..." (the position
// becomes the subject, the text before it the summary) or name only the
// file (LeinaoPAI's refusal): then the job's name position stands in, or
// the first role's, so the line still points into the file. It returns
// nil for errors that do not name the job's file.
func targetDiags(err error, plan *translate.Plan) hcl2.Diagnostics {
	var diags hcl2.Diagnostics
	if errors.As(err, &diags) {
		return diags
	}
	msg := err.Error()
	var job *jobs.Job
	path := ""
	if plan != nil && plan.Job != nil {
		job = plan.Job
		path = job.Source.Path
	}
	if path != "" {
		located := regexp.MustCompile(`^(.*?):? ?` + regexp.QuoteMeta(path) + `:(\d+):(\d+): (?s)(.*)$`)
		if m := located.FindStringSubmatch(msg); m != nil {
			var line, col int
			fmt.Sscan(m[2], &line)
			fmt.Sscan(m[3], &col)
			at := hcl2.Pos{Line: line, Column: col}
			return hcl2.Diagnostics{{Severity: hcl2.DiagError, Summary: summaryOf(m[1]), Detail: m[4],
				Subject: &hcl2.Range{Filename: path, Start: at, End: at}}}
		}
	}
	if i := strings.Index(msg, path+": "); path != "" && i >= 0 {
		return hcl2.Diagnostics{{Severity: hcl2.DiagError, Summary: summaryOf(strings.TrimSuffix(msg[:i], ": ")),
			Detail: msg[i+len(path)+2:], Subject: jobPos(job).Range()}}
	}
	for _, r := range jobRefusals {
		if errors.Is(err, r) {
			// a refusal of the job that names no file: at the job
			detail := strings.TrimPrefix(strings.TrimPrefix(msg, r.Error()), ": ")
			return hcl2.Diagnostics{{Severity: hcl2.DiagError, Summary: summaryOf(r.Error()), Detail: detail, Subject: jobPos(job).Range()}}
		}
	}
	return nil // not about the job (a cluster that does not answer...)
}

// jobRefusals are the drivers' errors that refuse the job itself (as
// opposed to a cluster that does not answer); located at the job even when
// their text names no file (the local LeinaoPAI refusal names none).
var jobRefusals = []error{slurm.ErrJob, local.ErrLeinaoLocal, local.ErrPortConflict, local.ErrNoEntrypoint,
	local.ErrCommandKind, local.ErrUnsupportedContract, nomad.ErrNoEntrypoint}

// summaryOf capitalises a driver's error prefix ("job cannot run on Slurm").
func summaryOf(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ":"))
	if s == "" {
		return "Job refused by the target"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// jobPos is where a refusal of the whole job points: the job's name, else
// its first role, else the file's start.
func jobPos(job *jobs.Job) jobs.Pos {
	switch {
	case job == nil:
		return jobs.Pos{}
	case !job.NamePos.IsZero():
		return job.NamePos
	case len(job.Roles) > 0 && !job.Roles[0].Pos.IsZero():
		return job.Roles[0].Pos
	}
	return jobs.Pos{File: job.Source.Path, Line: 1, Col: 1}
}

// printTargetError prints a driver's refusal located, as diagnostics, and
// any other driver error as "jobshift CMD: error".
func printTargetError(w io.Writer, cmd string, err error, plan *translate.Plan) {
	if d := targetDiags(err, plan); d != nil {
		printDiags(w, d)
		return
	}
	fmt.Fprintf(w, "jobshift %s: %v\n", cmd, err)
}
