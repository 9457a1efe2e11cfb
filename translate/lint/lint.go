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
func Contract(job *jobs.Job, opts contract.Options, known []string) hcl.Diagnostics {
	if job == nil {
		return nil
	}
	given, err := roleNames(job, opts)
	if err != nil {
		return nil // the contract's own check reports why it cannot render
	}
	byContract := map[string]names{}
	for _, c := range known {
		o := opts
		o.Contracts, o.Exact = []string{c}, true
		if per, err := roleNames(job, o); err == nil {
			byContract[c] = union(per)
		}
	}
	used := map[string]bool{}
	cs := opts.Contracts
	if len(cs) == 0 && !opts.Exact {
		cs = job.Contracts
	}
	for _, c := range cs {
		used[c] = true
	}
	l := &linter{job: job, given: given, byContract: byContract, all: union(given), used: used}
	for _, set := range byContract {
		for n := range set {
			l.all[n] = true
		}
	}
	var diags hcl.Diagnostics
	for _, r := range job.Roles {
		diags = append(diags, l.role(r)...)
	}
	return diags
}

// roleNames: the variable names each role's tasks get (names depend on the
// job and the role only, so its first task tells).
func roleNames(job *jobs.Job, opts contract.Options) (map[string]names, error) {
	c, err := contract.Compile(job, opts)
	if err != nil {
		return nil, err
	}
	b, err := c.Bind(contract.SampleTopologyFor(job, opts))
	if err != nil {
		return nil, err
	}
	out := map[string]names{}
	for _, r := range job.Roles {
		set := names{}
		if r.Instances > 0 {
			env, err := b.Env(jobs.TaskRef{Role: r.Name}, contract.ProcessMain)
			if err != nil {
				return nil, err
			}
			for _, v := range env {
				set[v.Name] = true
			}
		}
		out[r.Name] = set
	}
	return out, nil
}

func union(per map[string]names) names {
	out := names{}
	for _, set := range per {
		for n := range set {
			out[n] = true
		}
	}
	return out
}

type linter struct {
	job        *jobs.Job
	given      map[string]names // per role, under the job's contracts
	byContract map[string]names // every name each known contract would give
	all        names            // every name any contract gives this job
	used       map[string]bool  // the contracts the job's tasks get
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
		if seen[n] || assigned[n] || l.given[r.Name][n] || !l.platformLike(n) {
			continue
		}
		seen[n] = true
		summary, detail := l.explain(r, n, ref.env)
		diags = append(diags, jobs.Warnf(locate(l.job, ref), summary, "%s", detail))
	}
	return diags
}

// platformLike: would a reader take n for a variable the platform sets?
func (l *linter) platformLike(n string) bool {
	if l.all[n] {
		return true
	}
	for _, f := range families {
		if strings.HasPrefix(n, f) {
			return true
		}
	}
	return false
}

// explain says why role r's tasks lack n and what was probably meant.
func (l *linter) explain(r *jobs.Role, n string, env bool) (summary, detail string) {
	mine := l.given[r.Name]
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
	if cs := l.contractsGiving(n); len(cs) > 0 {
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

// contractsGiving: the known contracts the job does not use that give n.
func (l *linter) contractsGiving(n string) []string {
	var out []string
	for c, set := range l.byContract {
		if set[n] && !l.used[c] {
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
		if l.given[r.Name][n] {
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
