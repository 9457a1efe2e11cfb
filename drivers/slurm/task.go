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
	b.WriteString("js_unset_internal() {\n\tunset _jsh_task _jsh_contract _jsh_adir _jsh_lib\n")
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
		if ri.Resources.ShmSet && ri.Resources.ShmMiB > 0 {
			b.WriteString(shmCheck(ri.Resources.ShmMiB))
		}
		for _, e := range ri.Env {
			if !shName.MatchString(e.Name) {
				// Kubernetes allows '.' and '-' in names; a POSIX shell
				// cannot assign them, and the name must never become code.
				return "", refuse(e.Pos, "Role %s: environment variable name %q cannot be set by the batch script (POSIX sh names are letters, digits and _); rename it or run the job on Nomad or locally.", ri.Name, e.Name)
			}
			fmt.Fprintf(&b, "\t%s=%s\n\texport %s\n", e.Name, shQuote(e.Value), e.Name)
		}
		b.WriteString("\t:\n}\n")
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
	fmt.Fprintf(&b, "_t_uai_ps=%d\n", b2i(uaiPS))
	b.WriteString(restartData(job, st.Backoff))
	if st.InlineLib {
		b.WriteString(shRestart)
		b.WriteString(shTask)
		b.WriteString(taskDispatch(""))
	} else {
		// stage 1 needs the library's task functions; stage 2 only its
		// own js_run_R, so it starts the user's command without reading it
		b.WriteString(taskDispatch("# shellcheck source=/dev/null\n\t. \"$_jsh_lib\" || exit 97\n\t"))
	}
	return b.String(), nil
}

// taskDispatch picks the stage by $0 (sh/task.sh); lib is what stage 1
// runs first (sourcing the library file).
func taskDispatch(lib string) string {
	return "case $0 in\njobshift-task)\n\t" + lib + "js_task_main \"$1\"\n\t;;\n" +
		"jobshift-run) \"js_run_$1\" \"$@\" ;;\n*) echo \"jobshift: unknown task stage $0\" >&2; exit 97 ;;\nesac\n"
}

// shmCheck renders the /dev/shm check of a role that sized it (PAI shmMB,
// a Kubeflow memory emptyDir at /dev/shm). Slurm cannot size /dev/shm: it
// is the node's tmpfs, shared by every job there (what a task writes into
// it counts against its --mem under cgroup memory enforcement, as a memory
// emptyDir counted against the pod's limit). So the task says at start
// when less is free than the job asked for, instead of failing later with
// "No space left on device" in a DataLoader.
func shmCheck(mib int64) string {
	return fmt.Sprintf("\t_shm=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')\n"+
		"\t[ \"${_shm:-0}\" -ge %d ] || printf 'jobshift: warning: /dev/shm on %%s has %%s MiB free, the job asked for %d MiB (on Slurm /dev/shm is the node'\\''s)\\n' \"${SLURMD_NODENAME:-?}\" \"${_shm:-?}\" >&2\n", mib, mib)
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
