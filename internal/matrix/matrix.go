// Package matrix generates docs/conversion-matrix.md: for every input format
// and every field in its probe table, what jobshift does with it when read
// and on each target (carried, warned, refused, no effect). Nothing in the
// matrix is written by hand: each cell is the outcome of reading a small
// job with that field set and rendering it for the target, compared with
// the same job without the field. TestMatrixUpToDate fails when the
// committed file differs from what the code does now.
package matrix

//go:generate go test -run TestMatrixUpToDate -update .

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/local"
	_ "github.com/jobshift/jobshift/drivers/nomad" // registers nomad
	_ "github.com/jobshift/jobshift/drivers/slurm" // registers slurm
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// Targets are the matrix's target columns, in order.
var Targets = []string{"local", "nomad", "slurm"}

// Outcomes, as printed.
const (
	Carried  = "carried"   // the target's artifact changes with the field
	NoEffect = "no effect" // accepted, and nothing the target runs changes
	Warned   = "warned"    // a warning says what is lost or approximated
	Refused  = "refused"   // an error: the job does not convert
	Lossy    = "refused¹"  // an error that -lossy turns into a warning
)

// Row is one field's outcomes.
type Row struct {
	Field, Example string
	Read           string            // the reader's outcome
	Target         map[string]string // target → outcome
}

// Generate computes every format's rows.
func Generate() (map[string][]Row, error) {
	out := map[string][]Row{}
	for _, f := range formats {
		base, err := f.render(f.base())
		if err != nil {
			return nil, fmt.Errorf("%s base: %w", f.name, err)
		}
		for _, p := range f.probes {
			doc := f.base()
			set(doc, p.path, p.value)
			ex := example(p.value)
			for _, w := range p.with {
				set(doc, w.path, w.value)
				ex = example(w.value)
			}
			row := Row{Field: p.field, Example: ex, Target: map[string]string{}}
			row.Read, row.Target = f.classify(doc, base)
			out[f.name] = append(out[f.name], row)
		}
	}
	return out, nil
}

// outcome of one document: the reader's diagnostics and each target's
// normalised artifact (or its refusal) and warnings.
type outcome struct {
	readErr, readLossy, readWarn bool
	art                          map[string]string
	targetErr, targetWarn        map[string]bool
}

func (f *format) render(doc any) (*outcome, error) {
	src, err := f.encode(doc)
	if err != nil {
		return nil, err
	}
	o := &outcome{art: map[string]string{}, targetErr: map[string]bool{}, targetWarn: map[string]bool{}}
	job, diags := load.Read(src, jobs.ReadOptions{Path: "job"})
	if diags.HasErrors() {
		o.readErr = true
		job, diags = load.Read(src, jobs.ReadOptions{Path: "job", Lossy: true})
		if diags.HasErrors() {
			return o, nil
		}
		o.readLossy = true
	}
	o.readWarn = warned(diags)
	plan, diags := translate.Build(job, &siteconfig.Config{}, nil, "matrix")
	if diags.HasErrors() {
		o.readErr = true
		return o, nil
	}
	o.readWarn = o.readWarn || warned(diags)
	for _, t := range Targets {
		var warn bytes.Buffer
		d, err := drivers.New(t, drivers.Config{Site: &siteconfig.Config{}, Warnings: &warn,
			Options: map[string]string{local.OptRunDir: "/matrix/run", local.OptDir: "/matrix/dir"}})
		if err != nil {
			return nil, err
		}
		a, err := d.Render(context.Background(), plan)
		if err != nil {
			o.targetErr[t] = true
			continue
		}
		o.targetWarn[t] = warn.Len() > 0
		var b strings.Builder
		for _, file := range a.Files {
			b.Write(file.Data)
		}
		if t == "local" {
			// a local run applies the completion and retry rules from the
			// plan itself; its rendered task list does not show them
			b.WriteString(rules(plan.Job))
		}
		o.art[t] = normalise(b.String())
	}
	return o, nil
}

// rules are the completion and retry settings a local run applies.
func rules(job *jobs.Job) string {
	type role struct {
		MinFailed, MinSucceeded *int
		TaskRetryCount          int
		RestartPolicy           string
	}
	v := struct {
		Retry      jobs.Retry
		Completion jobs.Completion
		Roles      []role
	}{Retry: job.Retry, Completion: job.Completion}
	for _, r := range job.Roles {
		v.Roles = append(v.Roles, role{r.MinFailed, r.MinSucceeded, r.TaskRetryCount, r.RestartPolicy})
	}
	b, _ := json.Marshal(v)
	return "\n" + string(b)
}

// ports are what the local driver probes afresh on every render.
var ports = regexp.MustCompile(`\b[1-6][0-9]{4}\b`)

func normalise(s string) string { return ports.ReplaceAllString(s, "PORT") }

func warned(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning {
			return true
		}
	}
	return false
}

func (f *format) classify(doc any, base *outcome) (string, map[string]string) {
	o, err := f.render(doc)
	t := map[string]string{}
	if err != nil {
		return "error: " + err.Error(), t
	}
	read := NoEffect
	switch {
	case o.readErr && !o.readLossy:
		for _, n := range Targets {
			t[n] = "—"
		}
		return Refused, t
	case o.readLossy:
		read = Lossy
	case o.readWarn && !base.readWarn:
		read = Warned
	default:
		read = "read"
	}
	for _, n := range Targets {
		switch {
		case o.targetErr[n] && !base.targetErr[n]:
			t[n] = Refused
		case o.art[n] != base.art[n]:
			t[n] = Carried
		case o.targetWarn[n] && !base.targetWarn[n], read == Warned || read == Lossy:
			t[n] = Warned
		default:
			t[n] = NoEffect
		}
	}
	return read, t
}

func example(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
