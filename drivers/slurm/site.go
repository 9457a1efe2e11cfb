package slurm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// OptSbatchArgs is the Plan.Options key of the per-run extra #SBATCH
// directives (`jobshift run -sbatch-arg`), one per line.
const OptSbatchArgs = "sbatch_args"

// siteHooks are what a site adds to a job's batch script: #SBATCH
// directives from the site config (slurm.sbatch), its role rules
// (role.sbatch) and the command line (-sbatch-arg), and per-role setup
// commands (role.setup). They come after jobshift's own directives, so that
// a site's --time or --qos wins where sbatch lets the last one win.
type siteHooks struct {
	site, run []string
	role      map[int][]string // by role index
	setup     map[int][]string
}

func resolveHooks(p *translate.Plan, roles []roleInfo) (siteHooks, error) {
	h := siteHooks{role: map[int][]string{}, setup: map[int][]string{}}
	if p.Site != nil && p.Site.Slurm != nil {
		h.site = p.Site.Slurm.Sbatch
	}
	if v := p.Options[OptSbatchArgs]; v != "" {
		for _, a := range strings.Split(v, "\n") {
			if msg := siteconfig.CheckSbatchArg(a); msg != "" {
				return h, fmt.Errorf("%w: -sbatch-arg: %s", ErrSetting, msg)
			}
			h.run = append(h.run, a)
		}
	}
	for _, ri := range roles {
		if p.Site == nil {
			break
		}
		if rule := p.Site.Role(ri.Name); rule != nil {
			h.role[ri.k] = rule.Sbatch
			h.setup[ri.k] = rule.Setup
		}
	}
	return h, nil
}

// forComponent lists the extra directives of one het component (role k),
// or, with k < 0, of the one allocation every role shares: the site's, the
// role's (every role's, in order, without repeats), then the run's.
func (h siteHooks) forComponent(k int, roles []roleInfo) []string {
	out := append([]string(nil), h.site...)
	add := func(ds []string) {
		for _, d := range ds {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if k >= 0 {
		add(h.role[k])
	} else {
		for _, ri := range roles {
			add(h.role[ri.k])
		}
	}
	return append(out, h.run...)
}

// commentLine is the --comment directive naming the job's source file, so
// that `squeue -o %k` / `sacct -o Comment` tell an operator where a job came
// from. Characters sbatch's #SBATCH parser would split or quote on become
// '_' (the file name is for people; the script header has it verbatim).
func commentLine(path, format string) string {
	c := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == '"' || r == '\'' || r == ' ' || r == '\\' {
			return '_'
		}
		return r
	}, "jobshift:"+format+":"+path)
	const max = 200 // a comment is for people; keep the header readable
	if len(c) > max {
		c = c[:max]
	}
	return "--comment=" + c
}
