package contract

import (
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
)

// Check reports every reason the job cannot have its contracts (Options
// selects them), as diagnostics with the position of what is wrong. Eval,
// Shell and NomadTemplate run the same checks.
func Check(job *jobs.Job, opts Options) hcl.Diagnostics {
	if job == nil {
		return errNoJob.Diags
	}
	cs, err := contracts(job, opts)
	if err == nil {
		err = check(job, cs, opts)
	}
	d, _ := diag.Of(err)
	return d
}

// slot is one port: the n-th port of a label.
type slot struct {
	label string
	n     int
}

// convertName is OpenPAI's k8s-era role-name conversion
// (models/v2/job/k8s.js convertName): lower case, only [a-z0-9] kept.
func convertName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// tfPort is the port a role serves TF_CONFIG on: its tfjob-port, else its
// first declared port, else PAI's http port (the one PAI's host lists use).
func tfPort(r *jobs.Role) *slot {
	if p := findPort(r, "tfjob-port"); p != nil && p.Count > 0 {
		return &slot{p.Label, 0}
	}
	for _, p := range r.Ports {
		if !p.Implicit && p.Count > 0 {
			return &slot{p.Label, 0}
		}
	}
	if p := findPort(r, "http"); p != nil && p.Count > 0 {
		return &slot{p.Label, 0}
	}
	return nil
}

// torchPort is the rendezvous port of a role: its pytorchjob-port (or
// tfjob-port), else its first declared port.
func torchPort(r *jobs.Role) *slot {
	for _, l := range []string{"pytorchjob-port", "tfjob-port"} {
		if p := findPort(r, l); p != nil && p.Count > 0 {
			return &slot{p.Label, 0}
		}
	}
	for _, p := range r.Ports {
		if !p.Implicit && p.Count > 0 {
			return &slot{p.Label, 0}
		}
	}
	return nil
}

// declaredSlots are a role's non-implicit ports in declaration order.
func declaredSlots(r *jobs.Role) []slot {
	var out []slot
	for _, p := range r.Ports {
		if p.Implicit {
			continue
		}
		for n := range p.Count {
			out = append(out, slot{p.Label, n})
		}
	}
	return out
}

func check(job *jobs.Job, cs []string, opts Options) error {
	var diags hcl.Diagnostics
	bad := func(p jobs.Pos, summary, format string, args ...any) {
		diags = append(diags, jobs.Errorf(p, summary, format, args...))
	}
	value := func(p jobs.Pos, what, s string) {
		if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
			bad(p, "Value cannot be exported", "%s %q contains a NUL byte or is not valid UTF-8; no environment can carry it byte for byte.", what, s)
		}
	}
	name := func(p jobs.Pos, what, s string) {
		if s == "" || strings.ContainsAny(s, "=\x00") {
			bad(p, "Name cannot be part of a variable name", "%s %q is empty or contains '=' or NUL; it becomes part of environment variable names.", what, s)
		}
		value(p, what, s)
	}
	if len(job.Roles) == 0 {
		bad(job.NamePos, "Job has no roles", "A job needs at least one role.")
	}
	value(job.NamePos, "job name", job.Name)
	for _, r := range job.Roles {
		name(r.Pos, "role name", r.Name)
		if r.Instances < 0 {
			bad(r.InstancesPos, "Negative instances", "Role %q has %d instances.", r.Name, r.Instances)
		}
		for _, p := range r.Ports {
			name(p.Pos, "port label", p.Label)
			if p.Count < 0 {
				bad(p.Pos, "Negative port count", "Port label %q of role %q has count %d.", p.Label, r.Name, p.Count)
			}
		}
	}
	if diags.HasErrors() {
		return &diag.Error{Kind: ErrJob, Diags: diags}
	}
	pai := has(cs, jobs.ContractPAI)
	yarnNames := pai || has(cs, jobs.ContractPAIYarn)
	if yarnNames || has(cs, jobs.ContractLeinao) {
		if opts.User == "" || strings.Contains(opts.User, "~") {
			bad(job.NamePos, "Invalid user for OpenPAI naming", "User %q: OpenPAI names a job <user>~<job> and splits it at the first '~'; give a non-empty -user without '~'.", opts.User)
		}
		value(job.NamePos, "user name", opts.User)
		value(job.NamePos, "dataDir", job.DataDir)
		value(job.NamePos, "outputDir", job.OutputDir)
		value(job.NamePos, "codeDir", job.CodeDir)
		value(job.NamePos, "virtualCluster", job.VirtualCluster)
	}
	if yarnNames {
		for _, r := range job.Roles {
			for _, l := range []string{"http", "ssh"} {
				if p := findPort(r, l); p == nil || p.Count < 1 {
					bad(r.Pos, "Role lacks an OpenPAI port", "Role %q has no %q port; OpenPAI always gave every task one (the PAI readers add it). A job from another platform cannot use the pai contracts.", r.Name, l)
				}
			}
		}
	}
	if pai {
		seen := map[string]string{}
		for _, r := range job.Roles {
			c := convertName(r.Name)
			if c == "" {
				bad(r.Pos, "Role name converts to nothing", "OpenPAI's k8s runtime keeps only [a-z0-9] of role %q, which leaves an empty name; rename the role.", r.Name)
			} else if o, dup := seen[c]; dup {
				bad(r.Pos, "Role names collide", "OpenPAI's k8s runtime turns both %q and %q into %q; rename one of them.", o, r.Name, c)
			}
			seen[c] = r.Name
		}
	}
	if has(cs, jobs.ContractLeinao) {
		for _, r := range job.Roles {
			if p := findPort(r, LeinaoLabel); p != nil && p.Count != len(LeinaoPorts) {
				bad(p.Pos, "LeinaoPAI needs three ports", "Port label %q of role %q has %d ports; LeinaoPAI mapped exactly 3 (10001–10003).", LeinaoLabel, r.Name, p.Count)
			}
		}
	}
	if has(cs, jobs.ContractTF) && has(cs, jobs.ContractUAI) {
		bad(job.NamePos, "Contracts tf and uai both set TF_CONFIG", "Choose one of them with -contract.")
	}
	if has(cs, jobs.ContractTF) {
		checkTF(job, opts, bad)
	}
	if has(cs, jobs.ContractUAI) {
		checkUAI(job, bad)
	}
	if opts.Process == ProcessPS && !has(Processes(job, opts), ProcessPS) {
		bad(job.NamePos, "No parameter-server process", "Options.Process %q exists only with the uai contract on a job of more than one node.", opts.Process)
	} else if opts.Process != ProcessMain && opts.Process != ProcessPS {
		bad(job.NamePos, "Unknown process", "Options.Process %q is neither %q nor %q.", opts.Process, ProcessMain, ProcessPS)
	}
	if has(cs, jobs.ContractTorch) {
		checkTorch(job, bad)
	}
	checkKinds(job, cs, bad)
	checkTrainer(job, cs, bad)
	if has(cs, jobs.ContractMPI) && !opts.MPIDirRunTime {
		value(job.NamePos, "MPI directory", opts.MPIDir)
	}
	if diags.HasErrors() {
		return &diag.Error{Kind: ErrJob, Diags: diags}
	}
	return nil
}
