package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	hcl2 "github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
	"gopkg.in/yaml.v3"
)

// Shared CLI plumbing: the flags every job-reading command takes, the
// site config lookup, and the diagnostics printer. Flags follow the nomad
// CLI: single-dash long names from the standard flag package.

// stdin is replaced by tests.
var stdin io.Reader = os.Stdin

// newFlagSet makes a flag set whose -h prints help (synopsis, usage,
// examples) and then the options.
func newFlagSet(name, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, strings.TrimSpace(help))
		fmt.Fprintln(stderr, "\nOptions:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns the exit code to use when the command
// must stop (-h: 0, bad flag: 1) and ok=false.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0, false
		}
		return 1, false
	}
	return 0, true
}

// jobFlags are the options of every command that reads a job file.
type jobFlags struct {
	config    string
	vars      kvFlag
	secrets   string
	dialect   string
	lossy     bool
	contracts listFlag
	user      string

	opts    jobs.ReadOptions // set by check
	checked bool
}

func (f *jobFlags) register(fs *flag.FlagSet) {
	f.vars = kvFlag{}
	fs.StringVar(&f.config, "config", "", "Site config file. Default: $JOBSHIFT_CONFIG, ./jobshift.hcl, ~/.config/jobshift/jobshift.hcl.")
	fs.Var(&f.vars, "var", "Override a PAI v2 parameter, as `key=value`. Repeatable.")
	fs.StringVar(&f.secrets, "secrets", "", "YAML or JSON `file` of PAI v2 secrets (wins over a secrets document in the job file).")
	fs.StringVar(&f.dialect, "dialect", "", "Force the dialect of a PAI v1 file: \"leinao\" or \"pai\". Default: detect.")
	fs.BoolVar(&f.lossy, "lossy", false, "Turn errors about content jobshift would drop (and that changes what the job does) into warnings.")
	fs.Var(&f.contracts, "contract", "Contracts (environment variables) tasks get: \"tf\" adds tf to the job's defaults, \"=pai,tf\" replaces them, \"=\" gives none. Repeatable. Known: "+strings.Join(translate.Contracts, ", ")+".")
	fs.StringVar(&f.user, "user", "", "Submitting user (PAI's <user>~<job> names). Default: $USER, else \"jobshift\".")
}

// check validates the options that do not depend on a job file (dialect,
// -secrets, -contract names, -user) once, so that a bad option is reported
// once and not once per file; it also reads the secrets file.
func (f *jobFlags) check(files []string) hcl2.Diagnostics {
	f.opts = jobs.ReadOptions{Lossy: f.lossy}
	f.checked = true
	var diags hcl2.Diagnostics
	stdinUsers := 0
	for _, p := range append([]string{f.secrets}, files...) {
		if p == load.Stdin {
			stdinUsers++
		}
	}
	if stdinUsers > 1 {
		return hcl2.Diagnostics{cmdError("Standard input used twice",
			"Only one of -secrets and the job files can be \"-\" (standard input), and only once.")}
	}
	switch f.dialect {
	case "", "leinao", "pai":
		f.opts.Dialect = f.dialect
	default:
		diags = append(diags, cmdError("Unknown dialect", "-dialect %q: use \"leinao\" or \"pai\" (or leave it out to detect).", f.dialect))
	}
	if len(f.vars) > 0 {
		f.opts.Vars = map[string]string(f.vars)
	}
	if f.secrets != "" {
		s, d := readSecrets(f.secrets)
		f.opts.Secrets = s
		diags = append(diags, d...)
	}
	_, d := translate.ResolveContracts(nil, f.contracts)
	diags = append(diags, d...)
	_, d = translate.ResolveUser(f.user)
	return append(diags, d...)
}

// siteConfig loads the site config (see hcl.LoadConfig for the lookup).
func (f *jobFlags) siteConfig() (*hcl.Config, hcl2.Diagnostics) {
	return hcl.LoadConfig(f.config)
}

// loadPlan reads one job file and builds its plan. It runs check first
// when the command did not (commands reading one file need not call it). plan is nil when the
// job could not be read.
func (f *jobFlags) loadPlan(path string, cfg *hcl.Config) (*jobs.Job, *translate.Plan, hcl2.Diagnostics) {
	var diags hcl2.Diagnostics
	if !f.checked {
		if diags = f.check([]string{path}); diags.HasErrors() {
			return nil, nil, diags
		}
	}
	opts := f.opts
	opts.Path = path
	job, d := load.Load(path, opts)
	diags = append(diags, d...)
	if job == nil || d.HasErrors() {
		return job, nil, diags
	}
	plan, d := translate.Build(job, cfg, f.contracts, f.user)
	return job, plan, append(diags, d...)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// readSecrets reads a -secrets file: a YAML (or JSON) mapping.
func readSecrets(path string) (map[string]any, hcl2.Diagnostics) {
	// The job-file limit bounds a secrets file too (it was part of the
	// same Kubernetes objects), so an endless stdin cannot exhaust memory.
	var src []byte
	var d *hcl2.Diagnostic
	if path == "-" {
		src, d = load.ReadAllLimited(stdin, path)
	} else {
		src, d = load.ReadFileLimited(path)
	}
	if d != nil {
		d.Summary = strings.Replace(d.Summary, "job file", "secrets file", 1)
		return nil, hcl2.Diagnostics{d}
	}
	var m map[string]any
	if err := yaml.Unmarshal(src, &m); err != nil {
		line := 1
		if sm := yamlLine.FindStringSubmatch(err.Error()); sm != nil {
			line, _ = strconv.Atoi(sm[1])
		}
		return nil, hcl2.Diagnostics{{Severity: hcl2.DiagError, Summary: "Invalid secrets file",
			Detail:  fmt.Sprintf("%v. A secrets file is a YAML or JSON mapping of names to values.", err),
			Subject: &hcl2.Range{Filename: path, Start: hcl2.Pos{Line: line, Column: 1}, End: hcl2.Pos{Line: line, Column: 1}}}}
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// cmdError is a diagnostic about the command line (it has no file).
func cmdError(summary, detail string, args ...any) *hcl2.Diagnostic {
	return &hcl2.Diagnostic{Severity: hcl2.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...)}
}

// printDiags prints each diagnostic as
//
//	file:line:col: severity: summary
//	    detail
//
// (file alone when there is no line, nothing when there is no file).
func printDiags(w io.Writer, diags hcl2.Diagnostics) {
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl2.DiagWarning {
			sev = "warning"
		}
		prefix := ""
		if s := d.Subject; s != nil && s.Filename != "" {
			prefix = s.Filename + ": "
			if s.Start.Line > 0 {
				prefix = fmt.Sprintf("%s:%d:%d: ", s.Filename, s.Start.Line, s.Start.Column)
			}
		}
		fmt.Fprintf(w, "%s%s: %s\n", prefix, sev, d.Summary)
		for _, line := range strings.Split(strings.TrimRight(d.Detail, "\n"), "\n") {
			if line != "" {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}

// count returns the number of errors and warnings.
func countDiags(diags hcl2.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl2.DiagError {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// kvFlag is a repeatable key=value flag.
type kvFlag map[string]string

func (k kvFlag) String() string {
	keys := make([]string, 0, len(k))
	for key := range k {
		keys = append(keys, key+"="+k[key])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (k kvFlag) Set(s string) error {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	k[key] = value
	return nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// contractDiags reports why the plan's job cannot have its contracts (a
// port a contract needs, a role name the platform would have rejected):
// what a run would refuse, so validate and explain say it first.
func contractDiags(plan *translate.Plan) hcl2.Diagnostics {
	if plan == nil || len(plan.Contracts) == 0 {
		return nil // contract.Options would read an empty list as "the job's defaults"
	}
	return contract.Check(plan.Job, contract.Options{User: plan.User, Contracts: plan.Contracts})
}

// loadForTarget is what convert and run do first: the site config, then the
// job and its plan, printing every diagnostic. ok is false when the command
// must stop (errors were printed).
func (f *jobFlags) loadForTarget(path string, stderr io.Writer) (cfg *hcl.Config, plan *translate.Plan, ok bool) {
	cfg, diags := f.siteConfig()
	if diags.HasErrors() {
		printDiags(stderr, diags)
		return nil, nil, false
	}
	_, plan, d := f.loadPlan(path, cfg)
	diags = append(diags, d...)
	printDiags(stderr, diags)
	if plan == nil || diags.HasErrors() {
		return nil, nil, false
	}
	return cfg, plan, true
}
