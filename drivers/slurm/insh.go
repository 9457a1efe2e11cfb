package slurm

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/jobshift/jobshift/translate/contract"
)

//go:embed sh/insh.sh.tmpl
var inShellTemplate string

var inShellTmpl = template.Must(template.New("insh").Parse(stripComments(inShellTemplate)))

// inShellPrograms renders insh.R.sh for every role R whose tasks run
// without a supervisor (insh[k] for role k, from inShell): the program
// BASH_ENV names in that role's tasks (js_launch_insh), "" for the other
// roles. Each is straight-line code for its one role: the role's data
// (working directory, GPU visibility, /dev/shm, its variables, all static),
// and the contract's arm for the role (contract.ShellStages.Roles), in one
// function, _jsh_insh, whose locals are every variable it and the contract
// assign for themselves, so the user's script starts with nothing of
// jobshift's in its shell; then the functions are removed. bash only.
func inShellPrograms(roles []roleInfo, insh []bool, stages contract.ShellStages, contractVars []string) ([]string, error) {
	progs := make([]string, len(insh))
	locals := append(append([]string{}, stageLocals...), contractVars...)
	slices.Sort(locals)
	locals = slices.Compact(locals)
	fns := []string{"_jsh_insh", "_js_die"}
	for k := range roles {
		fns = append(fns, fmt.Sprintf("_jsh_want_%d", k), fmt.Sprintf("_js_self_%d", k))
	}
	for _, ri := range roles {
		if !insh[ri.k] {
			continue
		}
		if ri.k >= len(stages.Roles) {
			return nil, fmt.Errorf("slurm: the contract has no stage for role %d", ri.k)
		}
		d := inShellVars{K: ri.k, Locals: strings.Join(locals, " "), NoGPU: ri.res.GPUs == 0,
			Body: stages.Roles[ri.k].Body, Odd: stages.Roles[ri.k].Odd, WorkDir: stages.WorkDir,
			Funcs: strings.Join(fns, " ")}
		if ri.WorkingDir != "" {
			d.WorkingDir = shQuote(ri.WorkingDir)
		}
		if ri.Resources.ShmSet && ri.Resources.ShmMiB > 0 {
			d.Shm = ri.Resources.ShmMiB
		}
		for _, e := range ri.Env {
			// names were checked by envData: letters, digits and _
			d.Env = append(d.Env, "export "+e.Name+"="+shQuote(e.Value))
		}
		var b strings.Builder
		if err := inShellTmpl.Execute(&b, d); err != nil {
			return nil, err
		}
		progs[ri.k] = b.String()
	}
	return progs, nil
}

// inShellVars is what sh/insh.sh.tmpl reads.
type inShellVars struct {
	K                         int
	Locals, WorkingDir, Funcs string
	NoGPU                     bool
	Shm                       int64
	Env                       []string
	Body, WorkDir             string
	Odd                       []string
}

// stageLocals are the variables sh/insh.sh.tmpl assigns for itself
// (TestStageLocals keeps the list whole). JS_SELF_INDEX, the contract's
// input, is one: a local, it never reaches the user's environment.
var stageLocals = []string{"JS_SELF_INDEX", "_k_dir", "_k_want", "_k_stop", "_k_w", "_shm"}

// inShellNames reports whether role ri's own variables stay clear of the
// in-shell stage's locals: a variable of the role that had one of their
// names would be set into the local and lost when the stage returns, so
// such a role keeps its supervisor.
func inShellNames(ri roleInfo, contractVars []string) bool {
	for _, e := range ri.Env {
		if slices.Contains(stageLocals, e.Name) || slices.Contains(contractVars, e.Name) {
			return false
		}
	}
	return true
}
