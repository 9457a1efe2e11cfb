package slurm

import (
	"fmt"
	"slices"
	"strings"
)

// inShellProgram renders insh.sh, the program BASH_ENV names in the tasks
// of the roles without a supervisor (js_launch_insh, sh/stage.sh; inShell
// picks the roles, insh[k] for role k). The stage runs in one function,
// _jsh_insh, whose locals are every variable the stage and the contract's
// task stage assign (the task data of those roles, the stage's scratch,
// the contract's _js_ names): bash drops them all when it returns, so the
// user's script starts with nothing of jobshift's in its shell, without a
// list to walk (that walk took 0.6-0.8 ms of every task, with
// ${!name@a} per name). Then the functions it defined are removed. bash
// only. "" when no role runs in shell.
func inShellProgram(roles []roleInfo, insh []bool, contractVars []string) (string, error) {
	var data strings.Builder
	for _, ri := range roles {
		if !insh[ri.k] {
			continue
		}
		d, err := envData(ri)
		if err != nil {
			return "", err
		}
		data.WriteString(d)
	}
	if data.Len() == 0 {
		return "", nil
	}
	names := []string{"_t_nroles"}
	for _, m := range shData.FindAllStringSubmatch(data.String(), -1) {
		names = append(names, m[1])
	}
	names = append(names, stageLocals...)
	names = append(names, contractVars...)
	slices.Sort(names)
	names = slices.Compact(names)
	fns := append(shFuncs(shStage), "_jsh_insh", "_js_die", "_js_num", "_js_finish")
	for k := range roles {
		fns = append(fns, fmt.Sprintf("_jsh_want_%d", k), fmt.Sprintf("_js_self_%d", k))
	}
	var b strings.Builder
	b.WriteString("# shellcheck shell=bash disable=SC1003,SC2016,SC2034,SC2154,SC2209,SC2317\n_jsh_insh() {\n")
	fmt.Fprintf(&b, "local %s\n_t_nroles=%d\n", strings.Join(names, " "), len(roles))
	b.WriteString(data.String())
	b.WriteString("js_insh \"$1\"\n}\n")
	b.WriteString(stripComments(shStage))
	fmt.Fprintf(&b, "_jsh_insh \"$_jsh_ir\"\nunset -f %s\n", strings.Join(fns, " "))
	return b.String(), nil
}

// stageLocals are the variables sh/stage.sh's functions assign for
// themselves (TestStageLocals keeps the list whole).
var stageLocals = []string{"_k_r", "_k_i", "_k_dir", "_k_want", "_k_stop", "_k_w", "_shm",
	"_e_wd", "_e_nogpu", "_e_shm", "_e_n", "_e_r", "_e_j"}

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
