package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"go.yaml.in/yaml/v3"
)

// Shared CLI plumbing: the flags every job-reading command takes, the
// site config lookup, and the diagnostics printer. Flags follow the nomad
// CLI: single-dash long names from the standard flag package.

// stdin is replaced by tests.
var stdin io.Reader = os.Stdin

// helpOut is where help that was asked for goes (-h, `jobshift help
// CMD`): the command's standard output, so `jobshift run -h | less` shows
// it, as git and go do. Help after a usage error goes to stderr. realMain
// sets it to the stdout it was given.
var helpOut io.Writer = os.Stdout

// usageText holds each flag set's help until parseFlags knows whether it
// was asked for (stdout) or follows an error (stderr).
var usageText = map[*flag.FlagSet]*bytes.Buffer{}

// newFlagSet makes a flag set whose -h prints help (synopsis, usage,
// examples) and then the options.
func newFlagSet(name, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	lastFlagSet = fs // completion.go lists a command's flags from it
	fs.SetOutput(stderr)
	fs.BoolVar(&noColor, "no-color", false, "No colour on a terminal (as NO_COLOR=1 does).")
	var text bytes.Buffer
	usageText[fs] = &text
	fs.Usage = func() {
		text.Reset()
		fmt.Fprintln(&text, strings.TrimSpace(withFormats(help)))
		fmt.Fprintln(&text, "\nOptions:")
		fs.SetOutput(&text)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	return fs
}

// usageError prints fs's help after a usage error (on stderr).
func usageError(fs *flag.FlagSet) {
	fs.Usage()
	flushUsage(fs, false)
}

// isHelpArg: is a a request for help (-h, -help, --help)?
func isHelpArg(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// flushUsage writes the help fs.Usage produced, if any: to helpOut when it
// was asked for, else to the flag set's error output.
func flushUsage(fs *flag.FlagSet, asked bool) {
	text := usageText[fs]
	delete(usageText, fs)
	if text == nil || text.Len() == 0 {
		return
	}
	w := fs.Output()
	if asked {
		w = helpOut
	}
	_, _ = w.Write(text.Bytes())
}

// parseFlags parses args; it returns the exit code to use when the command
// must stop (-h: 0, bad flag: 2) and ok=false.
//
// Flags may come after the file names too (`jobshift run job.yaml -to
// slurm`), as most CLIs accept them: the standard flag package stops at the
// first non-flag, which read "-to" as a second file. "--" ends the flags;
// "-" (standard input) is a file name.
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			flushUsage(fs, err == flag.ErrHelp)
			if err == flag.ErrHelp {
				return exitOK, false
			}
			return exitUsage, false
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			files = append(files, rest...) // the flag package ate the "--"
			break
		}
		i := 0
		for i < len(rest) && (rest[i] == "-" || !strings.HasPrefix(rest[i], "-")) {
			i++
		}
		files = append(files, rest[:i]...)
		if i == len(rest) {
			break
		}
		if rest[i] == "--" {
			files = append(files, rest[i+1:]...)
			break
		}
		args = rest[i:]
	}
	_ = fs.Parse(append([]string{"--"}, files...)) // fs.Args() = the files
	return exitOK, true
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
	sbatch    listFlag
	runtimes  listFlag

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
	fs.Var(&f.runtimes, "runtime", "Kubeflow Trainer: a `file` of TrainingRuntimes / ClusterTrainingRuntimes a TrainJob may name (after the job file, before the site's runtime_dirs and the built-in runtimes). Repeatable.")
	fs.Var(&f.sbatch, "sbatch-arg", "Slurm: an extra #SBATCH `option` for this run (\"--qos=high\", \"--constraint=a100\"), after the site's. Repeatable.")
}

// check validates the options that do not depend on a job file (dialect,
// -secrets, -contract names, -user) once, so that a bad option is reported
// once and not once per file; it also reads the secrets file.
func (f *jobFlags) check(files []string) hcl.Diagnostics {
	f.opts = jobs.ReadOptions{Lossy: f.lossy, Runtimes: f.runtimes}
	f.checked = true
	var diags hcl.Diagnostics
	stdinUsers := 0
	for _, p := range append([]string{f.secrets}, files...) {
		if p == load.Stdin {
			stdinUsers++
		}
	}
	if stdinUsers > 1 {
		return hcl.Diagnostics{cmdError("Standard input used twice",
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
	for _, a := range f.sbatch {
		if msg := siteconfig.CheckSbatchArg(a); msg != "" {
			diags = append(diags, cmdError("Invalid -sbatch-arg", "%s.", msg))
		}
	}
	_, d := translate.ResolveContracts(nil, f.contracts)
	diags = append(diags, d...)
	_, d = translate.ResolveUser(f.user)
	return append(diags, d...)
}

// siteConfig loads the site config (see siteconfig.LoadConfig for the lookup).
func (f *jobFlags) siteConfig() (*siteconfig.Config, hcl.Diagnostics) {
	return siteconfig.LoadConfig(f.config)
}

// loadPlan reads one job file and builds its plan. It runs check first
// when the command did not (commands reading one file need not call it). plan is nil when the
// job could not be read.
func (f *jobFlags) loadPlan(path string, cfg *siteconfig.Config) (*jobs.Job, *translate.Plan, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if !f.checked {
		if diags = f.check([]string{path}); diags.HasErrors() {
			return nil, nil, diags
		}
	}
	opts := f.opts
	opts.Path = path
	if f.secrets == "" && cfg != nil && cfg.Secrets != nil {
		s, d := f.siteSecrets(cfg)
		if diags = append(diags, d...); d.HasErrors() {
			return nil, nil, diags
		}
		opts.Secrets = s
		if cfg.Secrets.NomadVariable != "" {
			user, _ := translate.ResolveUser(f.user) // checked by check
			opts.SecretSource = nomadSecretSource(cfg, user)
		}
	}
	if cfg != nil && cfg.Trainer != nil {
		opts.Runtimes = append(append([]string(nil), opts.Runtimes...), cfg.Trainer.RuntimeFiles()...)
		opts.StoragePath = cfg.Trainer.StoragePath
	}
	job, d := loadJob(path, opts)
	diags = append(diags, d...)
	if job == nil || d.HasErrors() {
		return job, nil, diags
	}
	plan, d := translate.Build(job, cfg, f.contracts, f.user)
	if plan != nil && len(f.sbatch) > 0 {
		plan.Options[slurm.OptSbatchArgs] = strings.Join(f.sbatch, "\n")
	}
	return job, plan, append(diags, d...)
}

// readSecrets reads a -secrets file: a YAML (or JSON) mapping.
func readSecrets(path string) (map[string]any, hcl.Diagnostics) {
	// The job-file limit bounds a secrets file too (it was part of the
	// same Kubernetes objects), so an endless stdin cannot exhaust memory.
	diag.MarkSecretFile(path) // no diagnostic quotes a line of it
	var src []byte
	var d *hcl.Diagnostic
	if path == "-" {
		src, d = load.ReadAllLimited(stdin, path)
		rememberStdin(nil) // standard input held a secret: nothing to quote
	} else {
		secretFiles.Store(path, true)
		src, d = load.ReadFileLimited(path)
	}
	if d != nil {
		d.Summary = strings.Replace(d.Summary, "job file", "secrets file", 1)
		return nil, hcl.Diagnostics{d}
	}
	return secretsValue(src, path)
}

// siteSecrets reads the site's secrets directory (siteconfig.
// SecretsConfig) as one -secrets file: the Secret and ConfigMap documents
// of all its files, nil when it holds none.
func (f *jobFlags) siteSecrets(cfg *siteconfig.Config) (map[string]any, hcl.Diagnostics) {
	sc := cfg.Secrets
	user, diags := translate.ResolveUser(f.user)
	if diags.HasErrors() {
		return nil, diags
	}
	files, err := sc.Files(user)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read the site's secrets", Detail: err.Error() + ".", Subject: sc.Range.Ptr()}}
	}
	var items []any
	for _, file := range files {
		v, d := readSecrets(file)
		if diags = append(diags, d...); d.HasErrors() {
			return nil, diags
		}
		switch v["kind"] {
		case "List":
			list, _ := v["items"].([]any)
			items = append(items, list...)
		case "Secret", "ConfigMap":
			items = append(items, v)
		default:
			return nil, append(diags, cmdError("Invalid site secrets file", "%s (the site's secrets dir, %s) holds no Secret or ConfigMap documents.", file, sc.Range))
		}
	}
	if len(items) == 0 {
		return nil, diags
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, diags
}

// nomadSecretSource asks the site's Nomad Variables (nomad.SiteSecret) for
// the Secrets of user that a job names and does not carry: only then is
// Nomad reached, so a job naming none converts with Nomad down. A Secret
// the secrets dir holds is taken from there, never asked. Its errors name
// the site rule and the address asked, never a value.
func nomadSecretSource(cfg *siteconfig.Config, user string) jobs.SecretSource {
	sc := cfg.Secrets
	return func(name string) (map[string]any, error) {
		prefix, err := sc.VariablePrefix(user)
		if err == nil {
			var v map[string]any
			if v, err = nomad.SiteSecret(drivers.Config{Site: cfg}, prefix, name); err == nil {
				return v, nil
			}
		}
		return nil, fmt.Errorf("the site keeps its Secrets as Nomad Variables (secrets { nomad_variable = %q } at %s), which cannot be read: %v; set NOMAD_ADDR and NOMAD_TOKEN to reach them, or pass -secrets FILE", sc.NomadVariable, sc.Range, err)
	}
}

const secretsHint = "A secrets file is a YAML or JSON mapping of names to values."

// secretsValue decodes a secrets file through the readers' YAML layer
// (located errors, alias bombs bounded); its first document is the
// mapping, as yaml.Unmarshal read it.
func secretsValue(src []byte, path string) (map[string]any, hcl.Diagnostics) {
	docs, d := yamlpos.Docs(src, path, yamlpos.Options{Hint: secretsHint})
	if d != nil {
		d.Summary = "Invalid secrets file"
		return nil, hcl.Diagnostics{d}
	}
	if list, ok := kubernetesObjects(docs); ok {
		return list, nil
	}
	var root *yaml.Node
	if len(docs) > 0 {
		root = yamlpos.Root(docs[0])
	}
	if root == nil {
		return map[string]any{}, nil
	}
	at := yamlpos.Pos(root, path)
	if root.Kind != yaml.MappingNode {
		return nil, hcl.Diagnostics{jobs.Errorf(at, "Invalid secrets file", "The file holds no mapping. %s", secretsHint)}
	}
	var diags hcl.Diagnostics
	for _, dup := range yamlpos.Pairs(root).Dups {
		diags = append(diags, jobs.Errorf(yamlpos.Pos(dup.KeyNode, path), "Invalid secrets file", "The secret %q is given twice. %s", dup.Key, secretsHint))
	}
	v, whole := yamlpos.Value(root, yamlpos.ValueOptions{})
	if !whole {
		diags = append(diags, jobs.Errorf(at, "Invalid secrets file", "The secrets expand to more than %d YAML nodes (through anchors and aliases); write them out plainly.", yamlpos.MaxValueNodes))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return v.(map[string]any), nil
}

// cmdError is a diagnostic about the command line (it has no file).
func cmdError(summary, detail string, args ...any) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, args...)}
}

// count returns the number of errors and warnings.
func countDiags(diags hcl.Diagnostics) (errs, warns int) {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
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

// loadJob is load.Load keeping standard input's text for the diagnostics'
// source lines.
func loadJob(path string, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	if path != load.Stdin {
		return load.Load(path, opts)
	}
	src, d := load.ReadAllLimited(load.StdinReader, opts.Path)
	if d != nil {
		return nil, hcl.Diagnostics{d}
	}
	rememberStdin(src)
	return load.Read(src, opts)
}

// loadForTarget is what convert and run do first: the site config, then the
// job and its plan, printing every diagnostic. ok is false when the command
// must stop (errors were printed).
func (f *jobFlags) loadForTarget(path string, stderr io.Writer) (cfg *siteconfig.Config, plan *translate.Plan, ok bool) {
	cfg, plan, code := f.loadForTargetWith(path, func(d hcl.Diagnostics) { printDiags(stderr, d) })
	return cfg, plan, code == exitOK
}

// loadForTargetWith is loadForTarget with the diagnostics given to emit
// (text or JSON); code is exitOK, exitUsage for a bad option value, or
// exitInvalid.
func (f *jobFlags) loadForTargetWith(path string, emit func(hcl.Diagnostics)) (cfg *siteconfig.Config, plan *translate.Plan, code int) {
	if diags := f.check([]string{path}); diags.HasErrors() {
		emit(diags)
		return nil, nil, diagsExitCode(diags)
	}
	cfg, diags := f.siteConfig()
	if diags.HasErrors() {
		emit(diags)
		return nil, nil, exitInvalid
	}
	_, plan, d := f.loadPlan(path, cfg)
	diags = append(diags, d...)
	if len(diags) > 0 {
		emit(diags)
	}
	if plan == nil || diags.HasErrors() {
		return nil, nil, exitInvalid
	}
	return cfg, plan, exitOK
}

// diagsExitCode is exitUsage when an error is about the command line (it
// names no file: a bad -dialect, -contract or -user), else exitInvalid.
func diagsExitCode(diags hcl.Diagnostics) int {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && (d.Subject == nil || d.Subject.Filename == "") {
			return exitUsage
		}
	}
	return exitInvalid
}

// writeJSON prints v as indented JSON (commands' -json output).
func writeJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // commands hold <, > and & that must read as written
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "jobshift: %v\n", err)
		return exitInvalid
	}
	return exitOK
}

// kubernetesObjects turns a secrets file of several Kubernetes Secret and
// ConfigMap documents into one v1 List, which the Kubeflow reader takes
// like the documents of the job file itself.
func kubernetesObjects(docs []*yaml.Node) (map[string]any, bool) {
	var items []any
	for _, d := range docs {
		root := yamlpos.Root(d)
		if root == nil {
			continue
		}
		v, whole := yamlpos.Value(root, yamlpos.ValueOptions{})
		m, ok := v.(map[string]any)
		if !whole || !ok || (m["kind"] != "Secret" && m["kind"] != "ConfigMap") {
			return nil, false
		}
		items = append(items, m)
	}
	if len(items) < 2 {
		return nil, false
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, true
}
