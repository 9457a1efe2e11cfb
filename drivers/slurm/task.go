package slurm

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// shName is what a POSIX shell can assign.
var shName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// taskProgram renders the text srun runs in every task: the task data
// (quoted lines: _t_*), then sh/run.sh (stage 2) and sh/dispatch.sh; stage
// 1's code is the library's (sh/task.sh).
func taskProgram(job *jobs.Job, roles []roleInfo, st settings) (string, error) {
	return taskProgramSecrets(job, roles, st, &secretTable{job: job, index: map[string]int{}})
}

// taskProgramSecrets is taskProgram numbering secret references in sec.
func taskProgramSecrets(job *jobs.Job, roles []roleInfo, st settings, sec *secretTable) (string, error) {
	var b strings.Builder
	// user values are data in single quotes (a word that names a command
	// is data too, SC2209); functions are called by computed names;
	// variables come from the batch script's environment
	b.WriteString("# shellcheck disable=SC1003,SC2016,SC2089,SC2090,SC2154,SC2209,SC2317\n")
	fmt.Fprintf(&b, "_t_nroles=%d\n", len(roles))
	for _, ri := range roles {
		data, err := envData(ri, sec)
		if err != nil {
			return "", err
		}
		b.WriteString(data)
	}
	for _, ri := range roles {
		data, err := runData(ri, st, job, sec)
		if err != nil {
			return "", err
		}
		b.WriteString(data)
		b.WriteString(initData(ri, sec))
	}
	uaiPS := len(st.Processes) > 1
	fmt.Fprintf(&b, "_t_uai_ps=%d\n_t_inline_lib=%d\n", b2i(uaiPS), b2i(st.InlineLib))
	b.WriteString(restartData(job, st.Backoff))
	code := shStage + shRun
	if slices.ContainsFunc(roles, func(ri roleInfo) bool { return len(ri.Init) > 0 }) {
		code += shInit
	}
	if st.InlineLib {
		code = shRestart + shTask + code
	}
	b.WriteString(stripComments(code + shDispatch))
	return b.String(), nil
}

// stripComments drops the comment lines of the embedded shell (but
// shellcheck's directives) from the task program: it is in every job's
// script, and every task without a supervisor parses it in bash (~75 µs
// per KiB here). The files under sh/ keep them. None of these files has
// a line starting with # inside a quoted string.
func stripComments(code string) string {
	var b strings.Builder
	b.Grow(len(code))
	for line := range strings.Lines(code) {
		t := strings.TrimLeft(line, " \t")
		if strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "# shellcheck ") || t == "\n" {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// shData matches the names the task data assigns: _t_NAME= at the start of
// a line or after a space. A quoted value can hold such a word too; its
// name then joins the list, which is harmless: only names in jobshift's
// own namespace (_t_*, refused for the job's variables) match, and the
// list is identifiers only, so it quotes plainly.
var shData = regexp.MustCompile(`(?m)(?:^| )(_t_[A-Za-z0-9_]+)=`)

// shFunc matches a function definition of the embedded shell files.
var shFunc = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)\(\) \{`)

// shFuncs lists the functions code defines, in order.
func shFuncs(code string) []string {
	var names []string
	for _, m := range shFunc.FindAllStringSubmatch(code, -1) {
		names = append(names, m[1])
	}
	return names
}

// bashNames are the argv[0] of a command the in-shell stage can run in:
// bash, which reads BASH_ENV (not as sh, in POSIX mode).
var bashNames = map[string]bool{"bash": true, "/bin/bash": true, "/usr/bin/bash": true}

// inShell tells whether role ri's tasks run without a supervisor, the
// contract set by the in-shell stage in the user's own bash (sh/stage.sh):
// its command is bash -c as an argument vector (not a file: no secret named
// in it, not too long),
// on the host (no container), with no ssh emulation, no setup command of
// the site, no UAI parameter server, not MPI, and no exit code of it ever
// restarts the task in place (completion.TaskRestartDecision, the most
// lenient case: no restart so far), and none of its own variables is
// named like one of the stage's locals (inShellNames; st.contractVars
// set). A restart needs a shell that outlives the command; so does
// everything else listed.
func inShell(job *jobs.Job, ri roleInfo, st settings) bool {
	argv := ri.launch.Argv
	if len(argv) < 3 || !bashNames[argv[0]] || argv[1] != "-c" || ri.ssh || ri.Image != "" && st.Container != "none" ||
		len(st.hooks.setup[ri.k]) > 0 || len(st.Processes) > 1 || completion.KindOf(job) == jobs.CompletionMPI || len(ri.Init) > 0 || secretEnv(ri.Role) {
		return false
	}
	// data or files at the job's paths need the task view, which only
	// the supervisor's js_exec_view gives
	if binds, _ := volumeBinds(ri.Role, st); binds != "" || len(ri.Files) > 0 {
		return false
	}
	// a command that travels as a file is run by the supervisor (a
	// scratch table: render's own records only what runData uses)
	if _, file := commandFile(ri, job, &secretTable{job: job, index: map[string]int{}}); file {
		return false
	}
	for code := range 256 {
		if completion.TaskRestartDecision(job, ri.Name, code, 0).Retry {
			return false
		}
	}
	return inShellNames(ri, st.contractVars)
}

// envData renders the data js_env (sh/task.sh) reads for role ri in
// stage 1: instances, working directory, GPU visibility, the /dev/shm size
// the job asked for, and the role's own variables as name/value pairs.
func envData(ri roleInfo, sec *secretTable) (string, error) {
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
		if strings.HasPrefix(e.Name, "_t_") || strings.HasPrefix(e.Name, "_jsh_") {
			// the task program's own data and the batch script's
			// variables live there: the job's value would be replaced
			return "", refuse(e.Pos, "Role %s: environment variable name %q is in a namespace the batch script uses for its own data (_t_*, _jsh_*), so the task would not see the job's value; rename it or run the job on Nomad or locally.", ri.Name, e.Name)
		}
		if e.Secret {
			// a Kubernetes Secret's value: by number from the 0600
			// secrets file (js_env), never in the task data
			fmt.Fprintf(&b, "_t_env_%d_%d=%s _t_esec_%d_%d=%d\n", k, j, e.Name, k, j, sec.add("env\x00"+ri.Name+"\x00"+e.Name, e.Value))
			continue
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

// commandFile decides whether role ri's command travels as a file (the
// file form of its launch line, translate.Launch.File): a long PAI
// command, or a v2 script that names a secret, whose text is then cut at
// the secret references (parts, recorded in sec), filled in by the task.
func commandFile(ri roleInfo, job *jobs.Job, sec *secretTable) (parts []secretPart, file bool) {
	c := ri.Command
	if c.Kind == jobs.CommandBashScript && len(job.Secrets) > 0 {
		_, text, _ := ri.launch.File("")
		parts = sec.split(text)
	}
	return parts, len(parts) > 1 || c.Kind != jobs.CommandArgv && len(c.Script) > longCommand
}

// runData renders the data js_run (sh/run.sh) reads for role ri in stage
// 2: the site's setup commands, the ssh emulation, the file the command
// travels in (a long PAI command, or a v2 script with secrets), the
// container and the argument vector; it refuses what cannot run.
func runData(ri roleInfo, st settings, job *jobs.Job, sec *secretTable) (string, error) {
	c, k := ri.Command, ri.k
	if c.Kind != jobs.CommandEval && c.Kind != jobs.CommandBashScript && c.Kind != jobs.CommandArgv {
		return "", refuse(c.Pos, "Role %s: unknown command kind %q.", ri.Name, c.Kind)
	}
	parts, inFile := commandFile(ri, job, sec)
	if len(parts) > 1 && st.Container != "none" && ri.Image != "" {
		return "", refuse(c.Pos, "Role %s uses secrets, which jobshift renders on the host; run it with container = \"none\".", ri.Name)
	}
	argv, file, fileIdx := ri.launch.Argv, "", -1
	if inFile {
		fargv, text, _ := ri.launch.File("")
		argv, fileIdx, file = fargv, len(fargv)-1, "cmd"
		if c.Kind == jobs.CommandBashScript {
			file = "user"
		}
		if len(parts) <= 1 {
			parts = []secretPart{{lit: text, secret: -1}}
		}
	}
	ctr := ""
	if st.Container == "apptainer" && ri.Image != "" {
		ctr = "exec"
		if c.Kind == jobs.CommandArgv && len(c.Command) == 0 {
			ctr = "run" // no command: the image's ENTRYPOINT with the args
		}
	} else if len(argv) == 0 && !ri.sshIdle {
		return "", refuse(c.Pos, "Role %s: the container has no `command`, so it runs the ENTRYPOINT of image %q, "+
			"which jobshift cannot know when tasks run on the host; add `command:`, or set slurm { container = \"apptainer\" } or \"pyxis\".", ri.Name, ri.Image)
	}
	if ri.sshIdle {
		// An idle MPIJob worker runs only the emulation's sshd: its
		// command (mpi-operator's `sshd -De`) is not run, so not written.
		argv, fileIdx, file, ctr = nil, -1, "", ""
	}
	var b strings.Builder
	ssh := 0
	if ri.ssh {
		ssh = 1 + b2i(ri.sshIdle)
	}
	setup := st.hooks.setup[k]
	fmt.Fprintf(&b, "_t_nsetup_%d=%d _t_ssh_%d=%d _t_file_%d=%s _t_fileidx_%d=%d _t_ctr_%d=%s\n", k, len(setup), k, ssh, k, shQuote(file), k, fileIdx, k, shQuote(ctr))
	if ri.ssh && ri.sshFiles != "" {
		fmt.Fprintf(&b, "_t_sshfiles_%d=%s\n", k, shQuote(ri.sshFiles))
	}
	for j, cmd := range setup {
		fmt.Fprintf(&b, "_t_setup_%d_%d=%s _t_setupmsg_%d_%d=%s\n", k, j, shQuote(cmd), k, j, shQuote(ri.Name+": "+oneLine(cmd)))
	}
	if ctr != "" {
		fmt.Fprintf(&b, "_t_sif_%d=%s\n", k, shQuote(sifName(ri.Image)))
	}
	if file != "" {
		fmt.Fprintf(&b, "_t_secret_%d=%d _t_nparts_%d=%d\n", k, b2i(len(parts) > 1), k, len(parts))
		for j, p := range parts {
			fmt.Fprintf(&b, "_t_sec_%d_%d=%d _t_part_%d_%d=%s\n", k, j, p.secret, k, j, shQuote(p.lit))
		}
	}
	view, err := viewData(ri, job, ctr, st)
	if err != nil {
		return "", err
	}
	b.WriteString(view)
	b.WriteString(filesData(ri, sec))
	fmt.Fprintf(&b, "_t_argc_%d=%d\n", k, len(argv))
	for j, a := range argv {
		if j != fileIdx {
			fmt.Fprintf(&b, "_t_arg_%d_%d=%s\n", k, j, shQuote(a))
		}
	}
	return b.String(), nil
}

// longCommand is the longest PAI command passed to bash as an argument;
// a longer one runs from a file, as OpenPAI ran it (one argument is at most
// 128 KiB, and arguments share ARG_MAX with the contract's environment).
const longCommand = 64 << 10

// retryKind: "always" (PAI jobRetryCount -2), "pai" (PAI fancy retry),
// "volcano" (RestartJob within maxRetry), "none" (Kubeflow: never retried
// as a whole).
func retryKind(pol completion.Policy) string {
	if pol.Kind == jobs.CompletionVolcano && pol.Job().Extras.Volcano != nil {
		return "volcano"
	}
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
	max := pol.Retry.JobRetryCount
	if kind == "volcano" {
		max = pol.Job().Extras.Volcano.MaxRetry
	}
	return fmt.Sprintf("_jsh_retry_kind=%s\n_jsh_retry_max=%d\n_jsh_retry_classes=%s\n", kind, max, cls)
}

// secretEnv: one of r's variables takes a Secret's value, which only the
// supervisor's js_env reads from the secrets file.
func secretEnv(r *jobs.Role) bool {
	return slices.ContainsFunc(r.Env, func(e jobs.EnvVar) bool { return e.Secret })
}
