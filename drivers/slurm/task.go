package slurm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// shName is what a POSIX shell can assign.
var shName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// taskProgram renders the text srun runs in every task: the task data
// (quoted lines: _t_*), each role's js_run_R, then sh/dispatch.sh; the
// code that reads the data is the library's (sh/task.sh).
func taskProgram(job *jobs.Job, roles []roleInfo, st settings) (string, error) {
	return taskProgramSecrets(job, roles, st, &secretTable{job: job, index: map[string]int{}})
}

// taskProgramSecrets is taskProgram numbering secret references in sec.
func taskProgramSecrets(job *jobs.Job, roles []roleInfo, st settings, sec *secretTable) (string, error) {
	var b strings.Builder
	// user values are data in single quotes; functions are called by
	// computed names; variables come from the batch script's environment
	b.WriteString("# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154,SC2317\n")
	fmt.Fprintf(&b, "_t_nroles=%d\n", len(roles))
	for _, ri := range roles {
		data, err := envData(ri)
		if err != nil {
			return "", err
		}
		b.WriteString(data)
	}
	for _, ri := range roles {
		env, prefix := sshPrefix(ri)
		run, err := runCommand(ri, st, prefix)
		if ri.sshIdle {
			run, err = sshIdleRun(ri), nil
		}
		if err != nil {
			return "", err
		}
		if ri.Command.Kind == jobs.CommandBashScript && len(job.Secrets) > 0 {
			if parts := sec.split(ri.Command.Script); len(parts) > 1 {
				if st.Container != "none" && ri.Image != "" {
					return "", refuse(ri.Command.Pos, "Role %s uses secrets, which jobshift renders on the host; run it with container = \"none\".", ri.Name)
				}
				run = secretScriptRun(parts, ri.k, prefix)
			}
		}
		fmt.Fprintf(&b, "js_run_%d() {\n%s\t%s\n}\n", ri.k, setupLines(ri.Name, st.hooks.setup[ri.k]), env+run)
	}
	uaiPS := len(st.Processes) > 1
	fmt.Fprintf(&b, "_t_uai_ps=%d\n_t_inline_lib=%d\n", b2i(uaiPS), b2i(st.InlineLib))
	b.WriteString(restartData(job, st.Backoff))
	if st.InlineLib {
		b.WriteString(shRestart)
		b.WriteString(shTask)
	}
	b.WriteString(shDispatch)
	return b.String(), nil
}

// envData renders the data js_env (sh/task.sh) reads for role ri in
// stage 1: instances, working directory, GPU visibility, the /dev/shm size
// the job asked for, and the role's own variables as name/value pairs.
func envData(ri roleInfo) (string, error) {
	var b strings.Builder
	k := ri.k
	shm := int64(0)
	if ri.Resources.ShmSet && ri.Resources.ShmMiB > 0 {
		shm = ri.Resources.ShmMiB
	}
	fmt.Fprintf(&b, "_t_n_%d=%d _t_nogpu_%d=%d _t_shm_%d=%d _t_nenv_%d=%d\n", k, ri.Instances, k, b2i(ri.res.GPUs == 0), k, shm, k, len(ri.Env))
	if ri.WorkingDir != "" {
		fmt.Fprintf(&b, "_t_wd_%d=%s\n", k, shQuote(ri.WorkingDir))
	}
	for j, e := range ri.Env {
		if !shName.MatchString(e.Name) {
			// Kubernetes allows '.' and '-' in names; a POSIX shell
			// cannot assign them, and the name must never become code.
			return "", refuse(e.Pos, "Role %s: environment variable name %q cannot be set by the batch script (POSIX sh names are letters, digits and _); rename it or run the job on Nomad or locally.", ri.Name, e.Name)
		}
		fmt.Fprintf(&b, "_t_env_%d_%d=%s _t_val_%d_%d=%s\n", k, j, e.Name, k, j, shQuote(e.Value))
	}
	return b.String(), nil
}

// restartData renders what js_restart and js_backoff read
// (completion.RestartShell).
func restartData(job *jobs.Job, bo completion.Backoff) string {
	return completion.RestartShellData(job, bo)
}

// runCommand is stage 2's command for a role: $2 is the attempt's state
// directory (the SIFs are one level up).
func runCommand(ri roleInfo, st settings, prefix string) (string, error) {
	c := ri.Command
	var argv []string
	prep := ""
	switch {
	case c.Kind != jobs.CommandArgv && len(c.Script) > longCommand:
		prep, argv = commandFile(ri.k, ri.launch)
	case c.Kind == jobs.CommandEval:
		argv = ri.launch.Argv
	case c.Kind == jobs.CommandBashScript:
		// $0 names the script like OpenPAI's file (user.sh)
		argv = ri.launch.Argv
	case c.Kind == jobs.CommandArgv:
		argv = ri.launch.Argv
	default:
		return "", refuse(c.Pos, "Role %s: unknown command kind %q.", ri.Name, c.Kind)
	}
	run, err := execLine(ri, st, argv, prep != "")
	if prefix != "" && err == nil {
		run = "exec " + prefix + strings.TrimPrefix(run, "exec ")
	}
	return prep + run, err
}

// longCommand is the longest PAI command passed to bash as an argument;
// a longer one runs from a file, as OpenPAI ran it (one argument is at most
// 128 KiB, and arguments share ARG_MAX with the contract's environment).
const longCommand = 64 << 10

// commandFile writes a long PAI command into the task's own file in the
// attempt's state directory ($2) with the printf builtin (no exec, no
// argument limit) and runs it from there (translate.Launch.File): a v2
// script as `bash user-…sh` (its $0 ends in .sh like OpenPAI's user.sh), a
// v1 line through eval.
func commandFile(k int, l translate.Launch) (string, []string) {
	argv, text, _ := l.File("@FILE@")
	name := "cmd"
	if l.Kind == jobs.CommandBashScript {
		name = "user"
	}
	prep := fmt.Sprintf("_f=\"$2/%s-%d-$SLURM_PROCID.sh\"\n\trm -f \"$_f\" && printf '%%s' %s >\"$_f\" || exit 97\n\t", name, k, shQuote(text))
	return prep, argv
}

// execLine is the exec of a role's command; fromFile: argv names "@FILE@",
// the file commandFile wrote.
func execLine(ri roleInfo, st settings, argv []string, fromFile bool) (string, error) {
	c := ri.Command
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shQuote(a)
		if fromFile && a == "@FILE@" {
			q[i] = `"$_f"`
		}
	}
	if st.Container == "apptainer" && ri.Image != "" {
		sif := fmt.Sprintf("\"$2/../%s\"", sifName(ri.Image))
		if fromFile {
			// the container sees the command file at the same path
			sif = `--bind "$2:$2" ` + sif
		}
		if c.Kind == jobs.CommandArgv && len(c.Command) == 0 {
			// no command: the image's ENTRYPOINT with the args
			return "exec apptainer run --nv " + sif + " " + strings.Join(q, " "), nil
		}
		return "exec apptainer exec --nv " + sif + " " + strings.Join(q, " "), nil
	}
	if len(argv) == 0 {
		return "", refuse(c.Pos, "Role %s: the container has no `command`, so it runs the ENTRYPOINT of image %q, "+
			"which jobshift cannot know when tasks run on the host; add `command:`, or set slurm { container = \"apptainer\" } or \"pyxis\".", ri.Name, ri.Image)
	}
	return "exec " + strings.Join(q, " "), nil
}

// retryKind: "always" (PAI jobRetryCount -2), "pai" (PAI fancy retry),
// "none" (Kubeflow: never retried as a whole).
func retryKind(pol completion.Policy) string {
	if pol.Kind != jobs.CompletionPAI {
		return "none"
	}
	if pol.Retry.JobRetryCount == -2 {
		return "always"
	}
	return "pai"
}

// retryData renders what js_retry reads: the policy and, for PAI, the class
// of every raw exit code 0..255 as OpenPAI would have classified the code it
// reported (completion.PAIExitCode, ClassifyPAIExit), one letter each.
func retryData(pol completion.Policy) string {
	kind := retryKind(pol)
	cls := ""
	if kind == "pai" {
		cls = completion.ExitClasses(pol.Job())
	}
	return fmt.Sprintf("_jsh_retry_kind=%s\n_jsh_retry_max=%d\n_jsh_retry_classes=%s\n", kind, pol.Retry.JobRetryCount, cls)
}
