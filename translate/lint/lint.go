package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// families are the name prefixes of contract variables: a name with one of
// them is a platform variable even when no contract gives it to this job.
var families = []string{"PAI_", "PET_", "K_MPI_", "OMPI_MCA_", "I_MPI_", "HYDRA_"}

// names is a set of variable names.
type names map[string]bool

// Contract checks every platform-variable reference of the job's commands
// and environment values against the variables its tasks get under opts
// (see the package doc). known lists every contract jobshift has, so a
// reference to a variable of another contract can name it.
//
// The environments are evaluated lazily, one task per role that has a
// reference to check, and another contract only for a role that uses a
// name its own contracts do not give: a job of many roles whose commands
// are right costs one evaluation per referencing role.
func Contract(job *jobs.Job, opts contract.Options, known []string) hcl.Diagnostics {
	if job == nil {
		return nil
	}
	used := map[string]bool{}
	cs := opts.Contracts
	if len(cs) == 0 && !opts.Exact {
		cs = job.Contracts
	}
	for _, c := range cs {
		used[c] = true
	}
	l := &linter{job: job, used: used, known: known, envs: map[string]*roleEnvs{}}
	l.envs[""] = &roleEnvs{opts: opts}
	for _, c := range known {
		o := opts
		o.Contracts, o.Exact = []string{c}, true
		l.envs[c] = &roleEnvs{opts: o}
	}
	if _, err := l.envs[""].names(job, job.Roles[0]); len(job.Roles) == 0 || err != nil {
		return nil // the contract's own check reports why it cannot render
	}
	var diags hcl.Diagnostics
	for _, r := range job.Roles {
		diags = append(diags, l.role(r)...)
	}
	return diags
}

// roleEnvs evaluates one set of contracts for the job, a role at a time.
type roleEnvs struct {
	opts  contract.Options
	bound *contract.Bound
	err   error
	done  bool
	per   map[string]names // role → the names its tasks get
}

// names are the variable names the tasks of role r get (names depend on
// the job and the role only, so its first task tells).
func (e *roleEnvs) names(job *jobs.Job, r *jobs.Role) (names, error) {
	if !e.done {
		e.done, e.per = true, map[string]names{}
		c, err := contract.Compile(job, e.opts)
		if err == nil {
			e.bound, err = c.Bind(contract.SampleTopologyFor(job, e.opts))
		}
		e.err = err
	}
	if e.err != nil {
		return nil, e.err
	}
	if set, ok := e.per[r.Name]; ok {
		return set, nil
	}
	set := names{}
	if r.Instances > 0 {
		// what every task shares, evaluated once, and this role's own
		shared, err := e.bound.Shared()
		if err != nil {
			return nil, err
		}
		own, err := e.bound.Own(jobs.TaskRef{Role: r.Name}, contract.ProcessMain)
		if err != nil {
			return nil, err
		}
		for _, v := range append(append(contract.Env(nil), shared...), own...) {
			set[v.Name] = true
		}
	}
	e.per[r.Name] = set
	return set, nil
}

type linter struct {
	job   *jobs.Job
	used  map[string]bool      // the contracts the job's tasks get
	known []string             // every contract jobshift has
	envs  map[string]*roleEnvs // "": the job's contracts; else one contract alone
}

// given: what role r's tasks get under the job's contracts.
func (l *linter) given(r *jobs.Role) names {
	set, _ := l.envs[""].names(l.job, r)
	return set
}

// other: what role r's tasks would get under contract c alone.
func (l *linter) other(c string, r *jobs.Role) names {
	set, _ := l.envs[c].names(l.job, r)
	return set
}

func (l *linter) role(r *jobs.Role) hcl.Diagnostics {
	refs, assigned := commandRefs(r)
	for _, e := range r.Env {
		assigned[e.Name] = true
		refs = append(refs, envRefs(e)...)
	}
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	for _, ref := range refs {
		n := ref.name
		if seen[n] || assigned[n] || l.given(r)[n] || !l.platformLike(r, n) {
			continue
		}
		seen[n] = true
		summary, detail := l.explain(r, n, ref.env)
		diags = append(diags, jobs.Warnf(locate(l.job, ref), summary, "%s", detail))
	}
	return diags
}

// platformLike: would a reader take n, used by role r, for a variable the
// platform sets (a contract jobshift knows would give it to r's tasks, or
// it has a contract's name prefix)?
func (l *linter) platformLike(r *jobs.Role, n string) bool {
	for _, f := range families {
		if strings.HasPrefix(n, f) {
			return true
		}
	}
	for _, c := range l.known {
		if l.other(c, r)[n] {
			return true
		}
	}
	return false
}

// explain says why role r's tasks lack n and what was probably meant.
func (l *linter) explain(r *jobs.Role, n string, env bool) (summary, detail string) {
	mine := l.given(r)
	where := "its command"
	if env {
		where = "an environment value"
	}
	lead := fmt.Sprintf("Role %s uses $%s in %s, but its tasks never get that variable, so it expands to nothing. ", r.Name, n, where)
	if k := find(mine, func(k string) bool { return fold(k) == fold(n) }); k != "" {
		return "Role name spelt as the runtime does not", lead + fmt.Sprintf(
			"Did you mean $%s? OpenPAI spells role names in these variables in lower case with only [a-z0-9] kept.", k)
	}
	if ks := findAll(mine, func(k string) bool { return digitsAsHash(k) == digitsAsHash(n) }); len(ks) > 0 {
		return "Task index out of range", lead + fmt.Sprintf(
			"The tasks get %s: no task has the index $%s names.", span(ks), n)
	}
	if cs := l.contractsGiving(r, n); len(cs) > 0 {
		return "Variable of a contract the job does not use", lead + fmt.Sprintf(
			"The %s contract sets it; add it with -contract %s (jobshift explain -contract %s shows what it gives).",
			strings.Join(cs, " or "), cs[0], cs[0])
	}
	if k := closest(mine, n); k != "" {
		return "Unknown platform variable", lead + fmt.Sprintf("Did you mean $%s?", k)
	}
	if others := l.rolesGiven(n); len(others) > 0 {
		return "Variable of another role", lead + fmt.Sprintf("Only the tasks of %s get it.", strings.Join(others, ", "))
	}
	return "Unknown platform variable", lead + "No contract jobshift knows gives it to this job (jobshift explain -env lists what each task gets)."
}

// contractsGiving: the known contracts the job does not use that would
// give n to role r's tasks.
func (l *linter) contractsGiving(r *jobs.Role, n string) []string {
	var out []string
	for _, c := range l.known {
		if !l.used[c] && l.other(c, r)[n] {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// rolesGiven: the roles whose tasks get n.
func (l *linter) rolesGiven(n string) []string {
	var out []string
	for _, r := range l.job.Roles {
		if l.given(r)[n] {
			out = append(out, r.Name)
		}
	}
	return out
}

// fold is a name with case and everything but letters and digits dropped:
// the runtime's role-name conversion applied to the whole name.
func fold(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// digitsAsHash replaces each run of digits with "#": names that differ
// only in a task index.
func digitsAsHash(s string) string {
	var b strings.Builder
	prev := false
	for _, c := range s {
		d := c >= '0' && c <= '9'
		if !d {
			b.WriteRune(c)
		} else if !prev {
			b.WriteByte('#')
		}
		prev = d
	}
	return b.String()
}

func find(set names, ok func(string) bool) string {
	if all := findAll(set, ok); len(all) > 0 {
		return all[0]
	}
	return ""
}

func findAll(set names, ok func(string) bool) []string {
	var out []string
	for k := range set {
		if ok(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// span names the first and last of sorted names ("$A_0 … $A_1").
func span(ks []string) string {
	if len(ks) == 1 {
		return "$" + ks[0]
	}
	return "$" + ks[0] + " … $" + ks[len(ks)-1]
}

// closest is the name of set nearest to n by edit distance, if it is near
// enough to be a typo (at most 2 edits, fewer for short names).
func closest(set names, n string) string {
	best, bestD := "", 3
	if len(n) < 8 {
		bestD = 2
	}
	for _, k := range findAll(set, func(string) bool { return true }) {
		if d := distance(n, k, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, or limit when it is at
// least limit.
func distance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
