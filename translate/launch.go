package translate

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// How the source platforms launched a task's command; the one place these
// lines are written (every target runs them unchanged, or the file form
// when the script travels as a file).
const (
	// PAIEval is OpenPAI v1 (YARN era): the command string is eval'ed by
	// bash, $1 being the command: bash -c PAIEval _ CMD.
	PAIEval = `eval "$1" || exit $?`
	// PAIEvalFile is PAIEval with the command read from the file $1:
	// read -d '' keeps every byte (trailing newlines included, which
	// $(cat) would drop), and `set --` puts the command back in $1, so the
	// eval sees exactly what PAIEval's would.
	PAIEvalFile = `IFS= read -r -d '' _jsh_cmd <"$1"; set -- "$_jsh_cmd"; unset _jsh_cmd; ` + PAIEval
	// PAIScriptFile runs a v2 script from the file $0, as OpenPAI's
	// runtime ran user.sh: bash reading a file ($0 is its path, no
	// arguments). It is a -c line so that WithWorkDir can put the
	// PAI_WORK_DIR export in front of it.
	PAIScriptFile = `exec bash "$0"`
	// PAIPrelude starts a protocol-v2 script: OpenPAI ran the commands as
	// a bash script with these options: bash -c PAIPrelude+SCRIPT user.sh.
	PAIPrelude = "set -o errexit -o nounset -o pipefail\n"
	// PAIScriptName is $0 of a v2 script, as OpenPAI named its file.
	PAIScriptName = "user.sh"
)

// Launch is a role's command as its platform ran it.
type Launch struct {
	// Argv is the command line: bash -c PAIEval _ CMD (PAI v1),
	// bash -c PAIPrelude+SCRIPT user.sh (PAI v2), command + args
	// (Kubeflow). For a container without command it is only the args:
	// the image's ENTRYPOINT comes first (Entrypoint).
	Argv []string
	// Entrypoint: the container has no `command`, so it runs its image's
	// ENTRYPOINT with Argv as arguments.
	Entrypoint bool
	// WorkDir: export PAI_WORK_DIR (contract.WorkDirExport) right before
	// the user command, as PAI's runtime did; see WithWorkDir.
	WorkDir bool
	// Kind is the command's form, for targets that deliver the script as
	// a file instead of an argument.
	Kind jobs.CommandKind
}

func launchOf(r *jobs.Role, workDir bool) Launch {
	c := r.Command
	l := Launch{Kind: c.Kind, WorkDir: workDir}
	switch c.Kind {
	case jobs.CommandEval:
		l.Argv = []string{"bash", "-c", PAIEval, "_", c.Script}
	case jobs.CommandBashScript:
		l.Argv = []string{"bash", "-c", PAIPrelude + c.Script, PAIScriptName}
	case jobs.CommandArgv:
		l.Argv = append(append([]string(nil), c.Command...), c.Args...)
		l.Entrypoint = len(c.Command) == 0
	}
	return l
}

// WithWorkDir returns argv with the PAI_WORK_DIR export put right before
// the user command when l.WorkDir and argv is a `bash -c SCRIPT ...` line
// (the export is shell: an argv command has no shell to run it in).
func (l Launch) WithWorkDir(argv []string) []string {
	if !l.WorkDir || len(argv) < 3 || argv[0] != "bash" || argv[1] != "-c" {
		return argv
	}
	out := append([]string(nil), argv...)
	out[2] = contract.WorkDirExport + out[2]
	return out
}

// File is the launch line when a PAI command travels as the file at path
// instead of an argument (too long for one, it holds secrets, or the
// target would interpolate it), and what that file holds: the same line
// PAI ran, reading the file (PAIEvalFile, PAIScriptFile). ok is false for
// an argv command (it has no script to put in a file).
func (l Launch) File(path string) (argv []string, text string, ok bool) {
	switch l.Kind {
	case jobs.CommandEval:
		return []string{"bash", "-c", PAIEvalFile, "_", path}, l.Argv[4], true
	case jobs.CommandBashScript:
		return []string{"bash", "-c", PAIScriptFile, path}, l.Argv[2], true
	}
	return nil, "", false
}
