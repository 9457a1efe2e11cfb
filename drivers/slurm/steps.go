package slurm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// checkSteps refuses, located, what the batch script cannot do for a
// role's init containers (jobs.Role.Init: run them in their own images,
// without a command, with a name or value the shell cannot carry).
func checkSteps(r *jobs.Role, stt settings) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, st := range r.Init {
		if st.Image != "" && stt.Container != "none" {
			diags = append(diags, jobs.Errorf(st.Pos, refused, "Role %s: the init container %q would run in its image %q, and the batch script runs init containers on the host only; set slurm { container = \"none\" } (its programs then come from the node) or run it locally.", r.Name, st.Name, st.Image))
		}
		if len(st.Command.Command) == 0 {
			diags = append(diags, jobs.Errorf(st.Command.Pos, refused, "Role %s: the init container %q has no `command`, so it runs the ENTRYPOINT of image %q, which jobshift cannot know when tasks run on the host; add `command:`.", r.Name, st.Name, st.Image))
		}
		for _, e := range st.Env {
			if !shellName(e.Name) {
				diags = append(diags, jobs.Errorf(e.Pos, refused, "Role %s: the init container %q sets %q, which the batch script cannot set (POSIX sh names are letters, digits and _).", r.Name, st.Name, e.Name))
			}
		}
		for _, v := range append(append(append([]string{}, st.Command.Command...), st.Command.Args...), envValues(st.Env)...) {
			if strings.IndexByte(v, 0) >= 0 {
				diags = append(diags, jobs.Errorf(st.Pos, refused, "Role %s: the init container %q has a command or environment value with a NUL byte, which no process argument or environment can carry.", r.Name, st.Name))
				break
			}
		}
	}
	return diags
}

func envValues(env []jobs.EnvVar) []string {
	out := make([]string, len(env))
	for i, e := range env {
		out[i] = e.Value
	}
	return out
}

// initData renders what js_run_init (sh/init.sh) reads for role ri: each
// init step's name, argument vector (command then args) and variables, a
// Secret's value by its number in the job's secrets file (sec).
func initData(ri roleInfo, sec *secretTable) string {
	if len(ri.Init) == 0 {
		return ""
	}
	var b strings.Builder
	k := ri.k
	fmt.Fprintf(&b, "_t_ninit_%d=%d\n", k, len(ri.Init))
	for j, st := range ri.Init {
		argv := append(append([]string{}, st.Command.Command...), st.Command.Args...)
		fmt.Fprintf(&b, "_t_initname_%d_%d=%s _t_initargc_%d_%d=%d _t_initnenv_%d_%d=%d\n", k, j, shQuote(st.Name), k, j, len(argv), k, j, len(st.Env))
		for i, a := range argv {
			fmt.Fprintf(&b, "_t_initarg_%d_%d_%d=%s\n", k, j, i, shQuote(a))
		}
		for i, e := range st.Env {
			if e.Secret {
				n := sec.add("init\x00"+ri.Name+"\x00"+st.Name+"\x00"+e.Name, e.Value)
				fmt.Fprintf(&b, "_t_initenvn_%d_%d_%d=%s _t_initenvs_%d_%d_%d=%d\n", k, j, i, e.Name, k, j, i, n)
				continue
			}
			fmt.Fprintf(&b, "_t_initenvn_%d_%d_%d=%s _t_initenvv_%d_%d_%d=%s\n", k, j, i, e.Name, k, j, i, shQuote(e.Value))
		}
	}
	return b.String()
}

// checkOrder refuses a Ready dependency (jobs.Role.DependsOn), which the
// batch script does not keep yet: it sees a task's end, not its start.
// Complete dependencies are kept (orderData, js_launch_after).
func checkOrder(r *jobs.Role) hcl.Diagnostics {
	for _, d := range r.DependsOn {
		if d.Status != jobs.DependsComplete {
			return hcl.Diagnostics{jobs.Errorf(d.Pos, refused, "Role %s starts only once role %s is %s (every task started); the batch script keeps Complete dependencies but not yet Ready ones, and would start both roles at once. Run it locally (jobshift run -to local).", r.Name, d.Role, d.Status)}
		}
	}
	return nil
}

// orderData renders _jsh_after_R, the indices of the roles role R waits
// to complete, for js_launch_after (sh/batch.sh).
func orderData(job *jobs.Job) string {
	var b strings.Builder
	for k, r := range job.Roles {
		var after []string
		for _, d := range r.DependsOn {
			if i := slices.IndexFunc(job.Roles, func(x *jobs.Role) bool { return x.Name == d.Role }); i >= 0 && d.Status == jobs.DependsComplete {
				after = append(after, strconv.Itoa(i))
			}
		}
		if len(after) > 0 {
			fmt.Fprintf(&b, "_jsh_after_%d='%s'\n", k, strings.Join(after, " "))
		}
	}
	return b.String()
}
