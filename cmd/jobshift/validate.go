package main

import (
	"fmt"
	"io"
)

const validateHelp = `
Usage: jobshift validate [options] FILE...

  Reads each job file (OpenPAI v1 JSON, OpenPAI v2 YAML, Kubeflow TFJob or
  PyTorchJob; the format is detected from the content) and reports every
  problem found, in every file, as

      file:line:col: severity: summary
          what to do

  on standard error, and one summary line per file on standard output.
  FILE "-" reads standard input. The site config (jobshift.hcl) is checked
  too, and its rules are applied as a run would apply them.

  Exit status: 0 when no file has an error (warnings are fine), 1 otherwise.

Examples:

  jobshift validate job.json
  jobshift validate -var epochs=10 -secrets secrets.yaml job.yaml
  cat tfjob.yaml | jobshift validate -
`

func init() {
	register("validate", "Check job files and report every problem", runValidate)
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	var jf jobFlags
	fs := newFlagSet("validate", validateHelp, stderr)
	jf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "jobshift validate: no job file given (use - for standard input)")
		fs.Usage()
		return 1
	}
	failed := false
	if diags := jf.check(fs.Args()); len(diags) > 0 {
		printDiags(stderr, diags)
		if diags.HasErrors() {
			return 1
		}
	}
	cfg, diags := jf.siteConfig()
	if len(diags) > 0 {
		printDiags(stderr, diags)
		if diags.HasErrors() {
			failed = true
			name := cfg.Path
			if name == "" {
				name = jf.config
			}
			if name == "" {
				name = "site config"
			}
			fmt.Fprintf(stdout, "%s: invalid site config\n", name)
		}
	}
	for _, path := range fs.Args() {
		job, plan, diags := jf.loadPlan(path, cfg)
		diags = append(diags, contractDiags(plan)...)
		printDiags(stderr, diags)
		errs, warns := countDiags(diags)
		if errs > 0 {
			failed = true
			fmt.Fprintf(stdout, "%s: %s, %s\n", path, nWords(errs, "error"), nWords(warns, "warning"))
			continue
		}
		fmt.Fprintf(stdout, "%s: valid %s job %q: %s, %s", path, job.Source.Format, job.Name,
			nWords(len(job.Roles), "role"), nWords(job.TaskCount(), "task"))
		if warns > 0 {
			fmt.Fprintf(stdout, ", %s", nWords(warns, "warning"))
		}
		fmt.Fprintln(stdout)
	}
	if failed {
		return 1
	}
	return 0
}

func nWords(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
