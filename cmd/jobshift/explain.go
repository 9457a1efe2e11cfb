package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

const explainHelp = `
Usage: jobshift explain [options] FILE

  Reads one job file and shows what jobshift understood: roles, instances,
  images, commands, resources, ports, the completion and retry policies,
  the contracts (environment) tasks will get, and every warning. The site
  config's rules are applied (rewritten images, role overrides). FILE "-"
  reads standard input.

  {{formats}}

  -json (or -format json) prints the job model (after the site rules) as
  JSON instead, with every diagnostic in its "diagnostics" field (the
  validate -json form); when the job cannot be read, only "diagnostics" is printed.
  -env prints, for a sample topology (or -topology FILE), every environment
  variable each task would get from the job's contracts (the variables
  every task gets with the same value once, under "# every task"; then each
  task's own). With -contract the
  table is followed by that environment for the chosen contracts, and
  -topology implies -env.

Examples:

  jobshift explain job.json
  jobshift explain -contract tf job.json
  jobshift explain -json tfjob.yaml | jq .roles
  jobshift explain -env -topology topo.json job.yaml
`

func init() {
	register("explain", "Show what jobshift understood of a job file", runExplain)
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	var jf jobFlags
	fs := newFlagSet("explain", explainHelp, stderr)
	jf.register(fs)
	format := fs.String("format", "table", "Output format: \"table\" or \"json\".")
	jsonFlag := fs.Bool("json", false, "Print the job model as JSON (the same as -format json, as every other command spells it).")
	env := fs.Bool("env", false, "Print the environment every task would get (sample topology unless -topology).")
	topology := fs.String("topology", "", "JSON `file` of a contract.Topology for -env (hosts and ports of every task).")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift explain: give exactly one job file (use - for standard input)")
		usageError(fs)
		return exitUsage
	}
	if *jsonFlag {
		*format = "json"
	}
	if *format != "table" && *format != "json" {
		fmt.Fprintf(stderr, "jobshift explain: -format %q: use \"table\" or \"json\"\n", *format)
		return exitUsage
	}
	// Choosing contracts is asking to see them: the table is followed by the
	// environment every task would get. A topology implies -env.
	envAfterTable := len(jf.contracts) > 0 && !*env && *format == "table"
	if *topology != "" && *format == "table" {
		*env = true
	}
	if *env && *format == "json" {
		fmt.Fprintln(stderr, "jobshift explain: -env prints text; use -env or -format json, not both")
		return exitUsage
	}
	if *topology != "" && !*env {
		fmt.Fprintln(stderr, "jobshift explain: -topology only applies with -env")
		return exitUsage
	}
	asJSON := *format == "json"
	// fail reports diagnostics with errors: as text, or with -format json
	// as a document holding only them (stdout stays parseable).
	fail := func(diags hcl.Diagnostics, code int) int {
		printDiags(stderr, diags)
		if asJSON {
			_ = writeExplainJSON(stdout, nil, diags)
		}
		return code
	}
	if diags := jf.check(fs.Args()); len(diags) > 0 {
		if diags.HasErrors() {
			return fail(diags, diagsExitCode(diags))
		}
		printDiags(stderr, diags)
	}
	cfg, diags := jf.siteConfig()
	if diags.HasErrors() {
		return fail(diags, exitInvalid)
	}
	job, plan, d := jf.loadPlan(fs.Arg(0), cfg)
	diags = append(diags, d...) // with the contract checks (translate.Build)
	if plan == nil || diags.HasErrors() {
		return fail(diags, exitInvalid)
	}
	switch {
	case *env:
		printDiags(stderr, diags)
		return explainEnv(plan, *topology, stdout, stderr)
	case asJSON:
		printDiags(stderr, diags)
		if err := writeExplainJSON(stdout, plan.Job, diags); err != nil {
			fmt.Fprintf(stderr, "jobshift explain: %v\n", err)
			return exitInvalid
		}
		return exitOK
	}
	explainTable(stdout, plan)
	if changes := siteChanges(job, plan); changes != "" {
		fmt.Fprintf(stdout, "\nSite config rules applied (%s):\n%s", plan.Site.Path, changes)
	}
	if len(diags) > 0 {
		fmt.Fprintln(stdout, "\nWarnings:")
		var b strings.Builder
		printDiags(&b, diags)
		fmt.Fprint(stdout, indentLines(b.String(), "  "))
	}
	if envAfterTable {
		fmt.Fprintln(stdout)
		return explainEnv(plan, "", stdout, stderr)
	}
	return 0
}

// writeExplainJSON prints the job model (nil when it could not be read)
// with its diagnostics as one more top-level field, "diagnostics" (the
// validate -json form), so `jq .roles` works as before and a script sees
// the warnings without parsing stderr.
func writeExplainJSON(w io.Writer, job *jobs.Job, diags hcl.Diagnostics) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // commands hold <, > and & that must read as written
	if job != nil {
		if err := enc.Encode(job); err != nil {
			return err
		}
	} else {
		b.WriteString("{}")
	}
	obj := bytes.TrimRight(b.Bytes(), "\n")
	b2 := bytes.Buffer{}
	enc = json.NewEncoder(&b2)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(diag.From(diags, sourceOf)); err != nil {
		return err
	}
	// obj is a JSON object: insert the field before its closing brace.
	body := bytes.TrimSpace(obj[1 : len(obj)-1])
	var out bytes.Buffer
	out.WriteString("{")
	if len(body) > 0 {
		out.Write(body)
		out.WriteString(",")
	}
	out.WriteString(`"diagnostics":`)
	out.Write(bytes.TrimRight(b2.Bytes(), "\n"))
	out.WriteString("}")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out.Bytes(), "", "  "); err != nil {
		return err
	}
	pretty.WriteString("\n")
	_, err := w.Write(pretty.Bytes())
	return err
}

func explainTable(w io.Writer, plan *translate.Plan) {
	job := plan.Job
	var about []string
	if job.Source.Version != "" {
		about = append(about, "version "+job.Source.Version)
	}
	if job.Source.Kind != "" {
		about = append(about, "kind "+job.Source.Kind)
	}
	if job.Source.Dialect != "" {
		about = append(about, job.Source.Dialect+" dialect")
	}
	src := string(job.Source.Format)
	if len(about) > 0 {
		src += " (" + strings.Join(about, ", ") + ")"
	}
	site := plan.Site.Path
	if site == "" {
		site = "(none)"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Job:\t%s\n", job.Name)
	fmt.Fprintf(tw, "Source:\t%s, %s\n", src, job.Source.Path)
	fmt.Fprintf(tw, "Site config:\t%s\n", site)
	fmt.Fprintf(tw, "User:\t%s\n", plan.User)
	fmt.Fprintf(tw, "Contracts:\t%s\n", fmtNone(strings.Join(plan.Contracts, ", ")))
	fmt.Fprintf(tw, "Tasks:\t%d\n", job.TaskCount())
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tINSTANCES\tIMAGE\tCPU\tMEMORY\tSHM\tGPU\tPORTS")
	for _, r := range job.Roles {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Instances, fmtDash(r.Image),
			fmtCores(r.Resources.CPUMilli), fmtMiB(r.Resources.MemoryMiB), fmtShm(r.Resources), fmtGPU(r.Resources), fmtPorts(r.Ports))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nCommands:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range job.Roles {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r.Name, r.Command.Kind, squeezeLine(explainCommand(r.Command), 72))
	}
	tw.Flush()

	if extra := explainRoleExtras(job); extra != "" {
		fmt.Fprintln(w, "\nRole details:")
		fmt.Fprint(w, extra)
	}
	explainVolumes(w, plan)

	fmt.Fprintln(w, "\nCompletion:")
	fmt.Fprint(w, explainCompletion(job))
	fmt.Fprintln(w, "\nRetries:")
	fmt.Fprint(w, explainRetries(job))
	if len(job.Parameters) > 0 || len(job.SecretNames) > 0 {
		fmt.Fprintln(w, "\nParameters and secrets:")
		keys := make([]string, 0, len(job.Parameters))
		for k := range job.Parameters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  %s = %s\n", k, squeezeLine(fmt.Sprint(job.Parameters[k]), 60))
		}
		if len(job.SecretNames) > 0 {
			fmt.Fprintf(w, "  secrets: %s (values hidden)\n", strings.Join(job.SecretNames, ", "))
		}
	}
}

// roleExtras lists what the table has no column for: env, volumes,
// extended resources, working dir, prerequisites.
func explainRoleExtras(job *jobs.Job) string {
	var b strings.Builder
	for _, r := range job.Roles {
		var parts []string
		if r.WorkingDir != "" {
			parts = append(parts, "workingDir "+r.WorkingDir)
		}
		if len(r.Env) > 0 {
			names := make([]string, len(r.Env))
			for i, e := range r.Env {
				names[i] = e.Name
			}
			parts = append(parts, "env "+strings.Join(names, ","))
		}
		for _, v := range r.Volumes {
			parts = append(parts, fmt.Sprintf("volume %s (%s) at %s", v.Name, v.Kind, v.MountPath))
		}
		if len(r.Resources.Extended) > 0 {
			keys := make([]string, 0, len(r.Resources.Extended))
			for k := range r.Resources.Extended {
				keys = append(keys, fmt.Sprintf("%s=%d", k, r.Resources.Extended[k]))
			}
			sort.Strings(keys)
			parts = append(parts, "resources "+strings.Join(keys, ","))
		}
		if len(r.Prerequisites) > 0 {
			parts = append(parts, "prerequisites "+strings.Join(r.Prerequisites, ","))
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "  %s: %s\n", r.Name, strings.Join(parts, "; "))
		}
	}
	return b.String()
}

func explainCompletion(job *jobs.Job) string {
	var b strings.Builder
	switch job.Completion.Kind {
	case jobs.CompletionPAI:
		b.WriteString("  OpenPAI: the job fails when minFailed tasks of a role have failed, succeeds when\n" +
			"  minSucceeded tasks of a role have succeeded (-1 or null: rule off), else ends when all tasks have.\n")
		for _, r := range job.Roles {
			fmt.Fprintf(&b, "    %s: minFailed %s, minSucceeded %s\n", r.Name, fmtOptInt(r.MinFailed), fmtOptInt(r.MinSucceeded))
		}
	case jobs.CompletionTF:
		rule := "succeeds when the chief/master succeeds (else worker 0)"
		if job.Completion.SuccessPolicy == "AllWorkers" {
			rule = "succeeds when all workers succeed (successPolicy AllWorkers)"
		}
		fmt.Fprintf(&b, "  TFJob: %s; fails when any replica fails for good\n", rule)
		if job.Completion.EnableDynamicWorker {
			b.WriteString("  enableDynamicWorker: true\n")
		}
	case jobs.CompletionPyTorch:
		b.WriteString("  " + pytorchFamilyRule(job) + "\n")
	case jobs.CompletionMPI:
		b.WriteString("  MPIJob: the launcher decides (succeeds or fails with it); workers are then stopped unless cleanPodPolicy is None\n")
	case jobs.CompletionJobSet:
		targets, op := strings.Join(job.Completion.SuccessRoles, ", "), "all"
		if targets == "" {
			targets = "every replicated job"
		}
		if job.Completion.SuccessAny {
			op = "any"
		}
		fmt.Fprintf(&b, "  TrainJob (JobSet): succeeds when %s of %s completed; fails when a replicated job fails (its backoffLimit spent)\n", op, targets)
		if job.Completion.GangTimeoutSeconds > 0 {
			fmt.Fprintf(&b, "  gang timeout %ds (coscheduling scheduleTimeoutSeconds)\n", job.Completion.GangTimeoutSeconds)
		}
	case jobs.CompletionVolcano:
		b.WriteString(explainVolcano(job))
	default:
		fmt.Fprintf(&b, "  %s\n", fmtNone(string(job.Completion.Kind)))
	}
	return b.String()
}

func explainRetries(job *jobs.Job) string {
	var b strings.Builder
	r := job.Retry
	if job.Completion.Kind == jobs.CompletionPAI {
		what := fmt.Sprintf("up to %s on failure", nWords(r.JobRetryCount, "time"))
		switch r.JobRetryCount {
		case -1:
			what = "on any failure, without limit"
		case -2:
			what = "always, even after success"
		case 0:
			what = "none for failures of unknown cause"
		}
		if r.Fancy {
			what += "; transient failures always retried, permanent ones never"
		}
		fmt.Fprintf(&b, "  job retries: %s (jobRetryCount %d)\n", what, r.JobRetryCount)
		fmt.Fprintf(&b, "  gang allocation: %v\n", r.GangAllocation)
		for _, role := range job.Roles {
			if role.TaskRetryCount > 0 {
				fmt.Fprintf(&b, "  %s: taskRetryCount %d\n", role.Name, role.TaskRetryCount)
			}
		}
		return b.String()
	}
	for _, role := range job.Roles {
		fmt.Fprintf(&b, "  %s: restartPolicy %s\n", role.Name, fmtDash(role.RestartPolicy))
		if role.BackoffLimit != nil {
			fmt.Fprintf(&b, "  %s: backoffLimit %d\n", role.Name, *role.BackoffLimit)
		}
	}
	if job.Completion.Kind == jobs.CompletionJobSet && r.JobRetryCount > 0 {
		fmt.Fprintf(&b, "  JobSet restarts: up to %d (failurePolicy.maxRestarts)\n", r.JobRetryCount)
	}
	if r.BackoffLimit != nil {
		fmt.Fprintf(&b, "  backoffLimit: %d\n", *r.BackoffLimit)
	}
	if r.ActiveDeadlineSeconds != nil {
		fmt.Fprintf(&b, "  activeDeadlineSeconds: %d\n", *r.ActiveDeadlineSeconds)
	}
	if r.CleanPodPolicy != "" {
		fmt.Fprintf(&b, "  cleanPodPolicy: %s\n", r.CleanPodPolicy)
	}
	if r.TTLSecondsAfterFinish != nil {
		fmt.Fprintf(&b, "  ttlSecondsAfterFinished: %d\n", *r.TTLSecondsAfterFinish)
	}
	return b.String()
}

func explainCommand(c jobs.Command) string {
	if c.Kind == jobs.CommandArgv {
		argv := append(append([]string(nil), c.Command...), c.Args...)
		if len(c.Command) == 0 {
			argv = append([]string{"<image entrypoint>"}, argv...)
		}
		return strings.Join(argv, " ")
	}
	return c.Script
}

// squeezeLine puts s on one line (a line break shows as ⏎) and cuts it to n
// characters.
func squeezeLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func fmtCores(milli int64) string {
	if milli == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(milli)/1000, 'f', -1, 64)
}

func fmtMiB(m int64) string {
	if m == 0 {
		return "-"
	}
	return fmt.Sprintf("%d MiB", m)
}

func fmtShm(r jobs.Resources) string {
	if !r.ShmSet && r.ShmMiB == 0 {
		return "-"
	}
	return fmtMiB(r.ShmMiB)
}

func fmtGPU(r jobs.Resources) string {
	s := strconv.Itoa(r.GPU)
	if r.GPUType != "" {
		s += " " + r.GPUType
	}
	return s
}

// ports prints "label" or "label×count", with the fixed number or range
// when the source gave one and "*" for ports the platform added.
func fmtPorts(ps []jobs.Port) string {
	if len(ps) == 0 {
		return "-"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		s := p.Label
		if p.Count != 1 {
			s += fmt.Sprintf("×%d", p.Count)
		}
		switch {
		case p.BeginAt > 0 && p.Count > 1:
			s += fmt.Sprintf("@%d-%d", p.BeginAt, p.BeginAt+p.Count-1)
		case p.BeginAt > 0:
			s += fmt.Sprintf("@%d", p.BeginAt)
		case p.Number > 0:
			s += fmt.Sprintf(":%d", p.Number)
		}
		if p.Implicit {
			s += "*"
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

func fmtOptInt(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

func fmtDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func indentLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// siteChanges lists what the site config's rules changed between the job
// as read and the plan, so a person sees every value jobshift did not take
// from the file.
func siteChanges(job *jobs.Job, plan *translate.Plan) string {
	if job == nil {
		return ""
	}
	var b strings.Builder
	for i, r := range job.Roles {
		if i >= len(plan.Job.Roles) {
			break
		}
		p := plan.Job.Roles[i]
		change := func(what, from, to string) {
			if from == to {
				return
			}
			if from == "-" {
				from = "(unset)"
			}
			fmt.Fprintf(&b, "  %s: %s %s -> %s\n", r.Name, what, from, to)
		}
		change("image", r.Image, p.Image)
		change("cpu", fmtCores(r.Resources.CPUMilli), fmtCores(p.Resources.CPUMilli))
		change("memory", fmtMiB(r.Resources.MemoryMiB), fmtMiB(p.Resources.MemoryMiB))
		change("shm", fmtShm(r.Resources), fmtShm(p.Resources))
		for _, e := range p.Env[min(len(r.Env), len(p.Env)):] {
			fmt.Fprintf(&b, "  %s: env %s added\n", r.Name, e.Name)
		}
	}
	return b.String()
}

// pytorchFamilyRule says how a job of the pytorch rule family ends
// (translate/completion README Y3, Y6–Y9).
func pytorchFamilyRule(job *jobs.Job) string {
	switch job.Source.Format {
	case jobs.FormatXGBoostJob:
		return "XGBoostJob: the Master decides (succeeds with it); any replica failing for good fails the job"
	case jobs.FormatPaddleJob:
		return "PaddleJob: the Masters decide, else every Worker must succeed; any replica failing for good fails the job"
	case jobs.FormatJAXJob:
		return "JAXJob: succeeds when every Worker succeeds; any Worker failing for good fails the job"
	case jobs.FormatMXJob:
		return "MXJob: the Scheduler decides (or the single Worker of a job without Scheduler and Server); any replica failing for good fails the job"
	}
	return "PyTorchJob: the master decides (succeeds or fails with it)"
}
