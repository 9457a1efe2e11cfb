package translate

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/lint"
)

// Contracts are the contract names jobshift knows, in the order the help
// text lists them.
var Contracts = contract.Known

// DefaultUser is the user when neither -user nor $USER says otherwise.
const DefaultUser = "jobshift"

// userName is what PAI-style <user>~<job> names and Nomad/Slurm job names
// can carry without quoting.
var userName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ResolveContracts applies -contract flag values to a job's default
// contracts. Each value is a comma-separated list of names:
//
//	-contract tf           adds tf to the job's defaults (duplicates ignored)
//	-contract =pai,tf      replaces the list so far with exactly pai, tf
//	-contract =            no contract at all
//
// Values apply in order, so "-contract =pai -contract tf" is pai, tf.
func ResolveContracts(defaults, values []string) ([]string, hcl.Diagnostics) {
	out := append([]string(nil), defaults...)
	var diags hcl.Diagnostics
	for _, v := range values {
		names := v
		if rest, ok := strings.CutPrefix(v, "="); ok {
			out, names = nil, rest
		}
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if !known(n) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError,
					Summary: "Unknown contract",
					Detail:  fmt.Sprintf("-contract %q: %q is not a contract; known contracts are %s.", v, n, strings.Join(Contracts, ", "))})
				continue
			}
			if !contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, diags
}

func known(name string) bool { return contains(Contracts, name) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ResolveUser returns the submitting user: explicit (-user), else $USER,
// else DefaultUser.
func ResolveUser(explicit string) (string, hcl.Diagnostics) {
	if explicit != "" {
		if !userName.MatchString(explicit) {
			return DefaultUser, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid user name",
				Detail: fmt.Sprintf("-user %q: a user name is letters, digits, '_', '.' and '-', starting with a letter or digit.", explicit)}}
		}
		return explicit, nil
	}
	if u := os.Getenv("USER"); userName.MatchString(u) {
		return u, nil
	}
	return DefaultUser, nil
}

// Build makes a Plan from a job read by jobs/load: it resolves contracts
// (see ResolveContracts) and the user (see ResolveUser), and applies the
// site config's rules to a copy of the job (the caller's job is not
// modified):
//
//   - image rules: the first matching rule's replace becomes the image;
//   - role rules: resource overrides, and extra env vars that never
//     override a variable the job sets (a clash is a warning);
//   - gpu_type rules are looked up by drivers; Build warns when a role asks
//     for a GPU type no rule maps.
//
// It also checks the job against its contracts (contract.Check) and
// returns those diagnostics too; the plan's compiled part (Compiled) is
// worked out here.
//
// (The brief named this function Plan; Go does not allow a function and the
// Plan type to share a name in one package.)
func Build(job *jobs.Job, cfg *siteconfig.Config, contracts []string, user string) (*Plan, hcl.Diagnostics) {
	if cfg == nil {
		cfg = &siteconfig.Config{}
	}
	var diags hcl.Diagnostics
	cs, d := ResolveContracts(job.Contracts, contracts)
	diags = append(diags, d...)
	u, d := ResolveUser(user)
	diags = append(diags, d...)

	j := *job
	j.Roles = make([]*jobs.Role, len(job.Roles))
	for i, r := range job.Roles {
		rc := *r
		diags = append(diags, applyRules(&rc, cfg)...)
		j.Roles[i] = &rc
	}
	p := &Plan{Job: &j, Contracts: cs, User: u, Site: cfg, Options: map[string]string{}, resolved: true}
	diags = append(diags, checkVolumes(p.Job, cfg)...)
	// Contract checks (a port a contract needs, a role name the platform
	// would have rejected): what every driver would refuse, said once here
	// with every position. (Unknown -contract names were dropped above.)
	checked := contract.Check(p.Job, p.Compiled().Contract)
	diags = append(diags, checked...)
	if !checked.HasErrors() {
		// Variables the commands use that no task gets (translate/lint).
		diags = append(diags, lint.Contract(p.Job, p.Compiled().Contract, Contracts)...)
	}
	if pos, msg, ok := completion.CheckOrder(p.Job); !ok {
		diags = append(diags, jobs.Errorf(pos, "Roles that never start", "%s", msg))
	}
	return p, diags
}

func applyRules(r *jobs.Role, cfg *siteconfig.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if r.Image != "" {
		if rule := cfg.Image(r.Image); rule != nil {
			r.Image = rule.Rewrite(r.Image)
		}
	}
	// an init container's image is the site's too (a copy: the job read
	// keeps its own)
	r.Init = slices.Clone(r.Init)
	for i, st := range r.Init {
		if rule := cfg.Image(st.Image); st.Image != "" && rule != nil {
			r.Init[i].Image = rule.Rewrite(st.Image)
		}
	}
	if rule := cfg.Role(r.Name); rule != nil {
		if rule.CPUMilli > 0 {
			r.Resources.CPUMilli = rule.CPUMilli
		}
		if rule.MemoryMiB > 0 {
			r.Resources.MemoryMiB = rule.MemoryMiB
		}
		if rule.ShmMiB > 0 {
			r.Resources.ShmMiB, r.Resources.ShmSet = rule.ShmMiB, true
		}
		if len(rule.Env) > 0 {
			env := append([]jobs.EnvVar(nil), r.Env...)
			names := make([]string, 0, len(rule.Env))
			for n := range rule.Env {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if i := envIndex(env, n); i >= 0 {
					diags = append(diags, jobs.Warnf(env[i].Pos, "Site env not applied",
						"The site config's role %q rule (%s) sets %s, but the job sets it too; the job's value is kept.",
						rule.Pattern, rangeString(rule.Range), n))
					continue
				}
				env = append(env, jobs.EnvVar{Name: n, Value: rule.Env[n], Pos: rangePos(rule.Range)})
			}
			r.Env = env
		}
	}
	diags = append(diags, applyDefaults(r, cfg.Defaults)...)
	if r.Resources.GPU > 0 && r.Resources.GPUType != "" && cfg.GPUType(r.Resources.GPUType) == nil {
		diags = append(diags, jobs.Warnf(r.Resources.Pos, "GPU type not mapped",
			"Role %s asks for GPU type %q, but no gpu_type rule in the site config matches it, so any GPU model may be used. "+
				"Add gpu_type %q { model = \"...\" } to jobshift.hcl to enforce it.", r.Name, r.Resources.GPUType, r.Resources.GPUType))
	}
	return diags
}

func envIndex(env []jobs.EnvVar, name string) int {
	for i, e := range env {
		if e.Name == name {
			return i
		}
	}
	return -1
}

func rangePos(r hcl.Range) jobs.Pos {
	return jobs.Pos{File: r.Filename, Line: r.Start.Line, Col: r.Start.Column}
}

func rangeString(r hcl.Range) string {
	if r.Filename == "" {
		return "site config"
	}
	return rangePos(r).String()
}
