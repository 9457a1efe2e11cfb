package slurm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// shName is what a POSIX shell can assign.
var shName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// taskProgram renders the text srun runs in every task: the generated
// per-role functions, then sh/task.sh.
func taskProgram(job *jobs.Job, roles []roleInfo, st settings) (string, error) {
	return taskProgramSecrets(job, roles, st, &secretTable{job: job, index: map[string]int{}})
}

// taskProgramSecrets is taskProgram numbering secret references in sec.
func taskProgramSecrets(job *jobs.Job, roles []roleInfo, st settings, sec *secretTable) (string, error) {
	var b strings.Builder
	// user values are data in single quotes; functions are called by
	// computed names; variables come from the batch script's environment
	b.WriteString("# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154,SC2317\n")
	b.WriteString("js_unset_internal() {\n\tunset _jsh_task _jsh_contract _jsh_adir\n")
	if len(roles) > 0 {
		b.WriteString("\tunset SLURM_HOSTFILE\n")
	}
	for _, ri := range roles {
		fmt.Fprintf(&b, "\t_u=0\n\twhile [ \"$_u\" -lt %d ]; do\n\t\tunset \"_jsh_node_%d_$_u\"\n\t\t_u=$((_u + 1))\n\tdone\n", ri.Instances, ri.k)
	}
	b.WriteString("}\n")
	for _, ri := range roles {
		// stage 1: working directory, GPU visibility, the role's own env
		// (the contract, applied after, wins on a clash, as in drivers/local)
		fmt.Fprintf(&b, "js_env_%d() {\n", ri.k)
		if ri.WorkingDir != "" {
			fmt.Fprintf(&b, "\tif [ -d %s ]; then cd %s || exit 97; fi\n", shQuote(ri.WorkingDir), shQuote(ri.WorkingDir))
		}
		if ri.res.GPUs == 0 {
			// without device cgroups an unset CUDA_VISIBLE_DEVICES means
			// every GPU of the node (spec/slurm.md §2)
			b.WriteString("\tCUDA_VISIBLE_DEVICES=\n\texport CUDA_VISIBLE_DEVICES\n")
		}
		for _, e := range ri.Env {
			if !shName.MatchString(e.Name) {
				// Kubernetes allows '.' and '-' in names; a POSIX shell
				// cannot assign them, and the name must never become code.
				return "", fmt.Errorf("%w: %s: role %s: environment variable name %q cannot be set by the batch script (POSIX sh names are letters, digits and _); rename it or run the job on Nomad or locally", ErrJob, e.Pos, ri.Name, e.Name)
			}
			fmt.Fprintf(&b, "\t%s=%s\n\texport %s\n", e.Name, shQuote(e.Value), e.Name)
		}
		b.WriteString("\t:\n}\n")
		run, err := runCommand(ri, st)
		if err != nil {
			return "", err
		}
		if ri.Command.Kind == jobs.CommandBashScript && len(job.Secrets) > 0 {
			if parts := sec.split(ri.Command.Script); len(parts) > 1 {
				if st.Container != "none" && ri.Image != "" {
					return "", fmt.Errorf("%w: %s: role %s uses secrets, which jobshift renders on the host; run it with container = \"none\"", ErrJob, ri.Command.Pos, ri.Name)
				}
				run = secretScriptRun(parts, ri.k)
			}
		}
		fmt.Fprintf(&b, "js_run_%d() {\n\t%s\n}\n", ri.k, run)
	}
	uaiPS := len(contract.Processes(job, contract.Options{User: st.User, Contracts: st.Contracts})) > 1
	fmt.Fprintf(&b, "_t_uai_ps=%d\n", b2i(uaiPS))
	b.WriteString(restartData(job, st.Backoff))
	b.WriteString(shRestart)
	b.WriteString(shTask)
	return b.String(), nil
}

// restartData renders what js_restart and js_backoff read
// (completion.RestartShell).
func restartData(job *jobs.Job, bo completion.Backoff) string {
	return completion.RestartShellData(job, bo)
}

// runCommand is stage 2's command for a role: $2 is the attempt's state
// directory (the SIFs are one level up).
func runCommand(ri roleInfo, st settings) (string, error) {
	c := ri.Command
	var argv []string
	prep := ""
	switch {
	case c.Kind != jobs.CommandArgv && len(c.Script) > longCommand:
		prep, argv = commandFile(ri.k, c)
	case c.Kind == jobs.CommandEval:
		argv = []string{"bash", "-c", pai1Eval, "_", c.Script}
	case c.Kind == jobs.CommandBashScript:
		// $0 names the script like OpenPAI's file (user.sh)
		argv = []string{"bash", "-c", pai2Prelude + c.Script, "user.sh"}
	case c.Kind == jobs.CommandArgv:
		argv = append(append([]string{}, c.Command...), c.Args...)
	default:
		return "", fmt.Errorf("%w: %s: role %s: unknown command kind %q", ErrJob, c.Pos, ri.Name, c.Kind)
	}
	run, err := execLine(ri, st, argv, prep != "")
	return prep + run, err
}

// longCommand is the longest PAI command passed to bash as an argument;
// a longer one runs from a file, as OpenPAI ran it (one argument is at most
// 128 KiB, and arguments share ARG_MAX with the contract's environment).
const longCommand = 64 << 10

// commandFile writes a long PAI command into the task's own file in the
// attempt's state directory ($2) with the printf builtin (no exec, no
// argument limit) and runs it from there: a v2 script as `bash user-…sh`
// (its $0 ends in .sh like OpenPAI's user.sh), a v1 line through eval as
// before.
func commandFile(k int, c jobs.Command) (string, []string) {
	text, name, argv := c.Script, "cmd", []string{"bash", "-c", `eval "$(cat "$1")" || exit $?`, "_", "@FILE@"}
	if c.Kind == jobs.CommandBashScript {
		text, name, argv = pai2Prelude+c.Script, "user", []string{"bash", "@FILE@"}
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
		return "", fmt.Errorf("%w: %s: role %s: the container has no `command`, so it runs the ENTRYPOINT of image %q, "+
			"which jobshift cannot know when tasks run on the host; add `command:`, or set slurm { container = \"apptainer\" } or \"pyxis\"",
			ErrJob, c.Pos, ri.Name, ri.Image)
	}
	return "exec " + strings.Join(q, " "), nil
}

// retryKind: "always" (PAI jobRetryCount -2), "pai" (PAI fancy retry),
// "none" (Kubeflow: never retried as a whole).
func retryKind(job *jobs.Job) string {
	if completion.KindOf(job) != jobs.CompletionPAI {
		return "none"
	}
	if job.Retry.JobRetryCount == -2 {
		return "always"
	}
	return "pai"
}

// retryData renders what js_retry reads: the policy and, for PAI, the class
// of every raw exit code 0..255 as OpenPAI would have classified the code it
// reported (completion.PAIExitCode, ClassifyPAIExit), one letter each.
func retryData(job *jobs.Job) string {
	kind := retryKind(job)
	cls := ""
	if kind == "pai" {
		cls = completion.ExitClasses(job)
	}
	return fmt.Sprintf("_jsh_retry_kind=%s\n_jsh_retry_max=%d\n_jsh_retry_classes=%s\n", kind, job.Retry.JobRetryCount, cls)
}
