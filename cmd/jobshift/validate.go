package main

import (
	"context"
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

const validateHelp = `
Usage: jobshift validate [options] FILE...

  Reads each job file (the format is detected from the content) and
  reports every problem found, in every file, as

      file:line:col: severity: summary
          what to do

  on standard error, and one summary line per file on standard output.
  FILE "-" reads standard input. The site config (jobshift.hcl) is checked
  too, and its rules are applied as a run would apply them.

  {{formats}}

  -to TARGET also runs the target's own checks (what 'convert -to TARGET'
  or 'run -to TARGET' would refuse: a Slurm layout that cannot hold the
  job, a LeinaoPAI job on local, ...). Nothing is submitted.

  -json prints one JSON document instead (shaped like 'terraform validate
  -json': format_version, valid, error_count, warning_count, diagnostics
  with their ranges), plus one entry per file.

  Exit status: 0 when no file has an error (warnings are fine), 1 when one
  has, 2 for usage errors.

Examples:

  jobshift validate job.json
  jobshift validate -var epochs=10 -secrets secrets.yaml job.yaml
  cat tfjob.yaml | jobshift validate -
  jobshift validate -to slurm job.json
  jobshift validate -json job.yaml | jq '.diagnostics[] | .range.start.line'
`

func init() {
	register("validate", "Check job files and report every problem", runValidate)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	var jf jobFlags
	fs := newFlagSet("validate", validateHelp, stderr)
	jf.register(fs)
	addPluginDirFlag(fs)
	to := fs.String("to", "", "Also run `TARGET`'s checks (nomad, slurm, local, ...): what convert/run -to TARGET would refuse.")
	asJSON := fs.Bool("json", false, "Print one JSON document on stdout (every diagnostic with its range, per-file results) instead of text.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "jobshift validate: no job file given (use - for standard input)")
		usageError(fs)
		return exitUsage
	}
	out := validateOutput{FormatVersion: jsonFormatVersion, Diagnostics: []diag.Diagnostic{}, Files: []validateFile{}}
	var all hcl.Diagnostics
	emit := func(d hcl.Diagnostics) {
		all = append(all, d...)
		if !*asJSON {
			printDiags(stderr, d)
		}
	}
	finish := func(code int) int {
		if *asJSON {
			out.ErrorCount, out.WarningCount = diag.Counts(all)
			out.Valid = code == exitOK
			out.Diagnostics = diag.From(all, sourceOf)
			if c := writeJSON(stdout, stderr, out); c != exitOK {
				return c
			}
		}
		return code
	}
	if diags := jf.check(fs.Args()); len(diags) > 0 {
		emit(diags)
		if diags.HasErrors() {
			return finish(diagsExitCode(diags))
		}
	}
	failed := false
	cfg, diags := jf.siteConfig()
	if len(diags) > 0 {
		emit(diags)
		if diags.HasErrors() {
			failed = true
			name := cfg.Path
			if name == "" {
				name = jf.config
			}
			if name == "" {
				name = "site config"
			}
			if !*asJSON {
				fmt.Fprintf(stdout, "%s: invalid site config\n", name)
			}
		}
	}
	var drv drivers.Driver
	var targetWarnings hcl.Diagnostics // what the target's checks warn about, counted with the job's own
	if *to != "" && !failed {
		d, err := drivers.New(*to, drivers.Config{Site: cfg, Warnings: stderr,
			Warn: func(ws hcl.Diagnostics) { targetWarnings = append(targetWarnings, ws...) }})
		if err != nil {
			fmt.Fprintf(stderr, "jobshift validate: -to %s: %v\n", *to, err)
			return finish(exitUsage)
		}
		drv = d
	}
	for _, path := range fs.Args() {
		job, plan, diags := jf.loadPlan(path, cfg) // with the contract checks (translate.Build)
		if drv != nil && plan != nil && !diags.HasErrors() {
			targetWarnings = nil
			refused := targetChecks(drv, plan)
			diags = append(append(diags, targetWarnings...), refused...)
			diags = append(diags, unmappedVolumes(plan)...)
		}
		emit(diags)
		errs, warns := countDiags(diags)
		f := validateFile{Path: path, Valid: errs == 0, ErrorCount: errs, WarningCount: warns, Target: *to}
		if errs > 0 {
			failed = true
			out.Files = append(out.Files, f)
			if !*asJSON {
				fmt.Fprintf(stdout, "%s: %s, %s\n", path, nWords(errs, "error"), nWords(warns, "warning"))
			}
			continue
		}
		f.Format, f.Name, f.Roles, f.Tasks = string(job.Source.Format), job.Name, len(job.Roles), job.TaskCount()
		out.Files = append(out.Files, f)
		if *asJSON {
			continue
		}
		fmt.Fprintf(stdout, "%s: valid %s job %q: %s, %s", path, job.Source.Format, job.Name,
			nWords(len(job.Roles), "role"), nWords(job.TaskCount(), "task"))
		if *to != "" {
			fmt.Fprintf(stdout, ", accepted by %s", *to)
		}
		if warns > 0 {
			fmt.Fprintf(stdout, ", %s", nWords(warns, "warning"))
		}
		fmt.Fprintln(stdout)
	}
	if failed {
		return finish(exitInvalid)
	}
	return finish(exitOK)
}

// targetChecks renders the plan for the target (no side effects, nothing
// submitted) and returns its refusal as the diagnostics the driver located
// (an unlocated refusal points at the job's name).
func targetChecks(drv drivers.Driver, plan *translate.Plan) hcl.Diagnostics {
	_, err := drv.Render(context.Background(), plan)
	if err == nil {
		return nil
	}
	if d, ok := diag.Of(err); ok {
		return d
	}
	at := plan.Job.NamePos
	if at.IsZero() {
		at = jobs.Pos{File: plan.Job.Source.Path, Line: 1, Col: 1}
	}
	return hcl.Diagnostics{jobs.Errorf(at, "Refused by "+drv.Name(), "%v", err)}
}

// jsonFormatVersion is validate -json's format_version (Terraform's field):
// it changes only when a field is removed or changes meaning.
const jsonFormatVersion = "1.0"

// validateOutput is validate -json's document: Terraform's `validate
// -json` fields (format_version, valid, error_count, warning_count,
// diagnostics), plus one entry per file.
type validateOutput struct {
	FormatVersion string            `json:"format_version"`
	Valid         bool              `json:"valid"`
	ErrorCount    int               `json:"error_count"`
	WarningCount  int               `json:"warning_count"`
	Diagnostics   []diag.Diagnostic `json:"diagnostics"`
	Files         []validateFile    `json:"files"`
}

type validateFile struct {
	Path         string `json:"path"`
	Valid        bool   `json:"valid"`
	ErrorCount   int    `json:"error_count"`
	WarningCount int    `json:"warning_count"`
	// Target is -to's target whose checks ran too ("" = none).
	Target string `json:"target,omitempty"`
	// For a valid file: its format, job name, roles and tasks.
	Format string `json:"format,omitempty"`
	Name   string `json:"name,omitempty"`
	Roles  int    `json:"roles,omitempty"`
	Tasks  int    `json:"tasks,omitempty"`
}

func nWords(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
