package nomad

import (
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/jobshift/jobshift/internal/shquote"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

//go:embed sh/restart-loop.sh
var shRestartLoop string

//go:embed sh/stop-group.sh
var shStopGroup string

// stopWrap puts the command of a task that is not restarted in place
// under sh/stop-group.sh (the process group gets the stop signal): the
// shape gives it to tasks of the drivers where Nomad signals only the
// task's top process (Traits.GroupSignal: raw_exec and exec). A
// container's stop signal goes to its PID 1, exactly as a pod's container
// runtime sends it, so a container task gets the wrapper only for its log
// drain tail (Traits.LogsCutAtExit: docker), with /bin/sh from its image
// as the barrier task assumes. An empty command (an idle MPIJob worker
// runs only the ssh emulation) has nothing to wrap.
//
// The wrapper travels as `sh -c` text in the task's args, not as a file
// template: every template costs the task about as much as the env
// template itself in Nomad's template hook (≈ 0.1–0.2 s per task on 2
// cores, issue 15, BENCHMARKS.md "Snapshot from the placements"), and
// the text holds no "${" for Nomad's interpolation of args to touch
// (TestStopWrapInArgs).
//
// With fin (the shape's in-task finisher), the wrapper execs `fin
// nomad-finish -exit CODE` where it would exit CODE (withFinisher).
func stopWrap(uc *userCommand, drain bool, fin string) *userCommand {
	if len(uc.argv) == 0 || uc.wrapped {
		return uc
	}
	out := *uc
	out.argv = append([]string{"/bin/sh", "-c", withFinisher(withDrain(stopGroupArg, "_g", drain), "_g", fin), "jobshift-group"}, uc.argv...)
	return &out
}

// drainLine is the log drain tail (WrapLogDrain): a second for the
// driver's logger to take the command's last output before the container
// ends. A stop does not shorten it (the trap runs after the sleep) and
// kill_timeout (5s) bounds it.
const drainLine = "sleep 1\n"

// withDrain is script (as for withFinisher) with drainLine before its
// exit; false leaves it as it is.
func withDrain(script, pre string, drain bool) string {
	last := `exit "$` + pre + `_rc"` + "\n"
	if !drain || !strings.HasSuffix(script, last) {
		return script
	}
	return strings.TrimSuffix(script, last) + drainLine + last
}

// withFinisher is script (a wrapper whose variables start with pre and
// whose last line is `exit "$<pre>_rc"`) with, before that line, the exec
// of the in-task finisher fin: unless the task was stopped (a stop is no
// end of the task's own: the job or the allocation is being stopped) or
// fin is not there on this client, in which case the task exits as it
// would have. "" leaves script as it is.
func withFinisher(script, pre, fin string) string {
	last := `exit "$` + pre + `_rc"` + "\n"
	if fin == "" || !strings.HasSuffix(script, last) {
		return script
	}
	q := shquote.QuoteAll([]string{fin})
	tail := fmt.Sprintf("[ \"$%s_stop\" = 1 ] || [ ! -x %s ] || exec %s nomad-finish %s \"$%s_rc\"\n", pre, q, q, FinishExit, pre)
	return strings.TrimSuffix(script, last) + tail + last
}

// stopGroupArg is sh/stop-group.sh without its comment lines (they are
// for readers of the source, not for every task's command line).
var stopGroupArg = shCode(shStopGroup)

// shCode drops the whole-line comments and blank lines of a script that
// has no here-documents or multi-line strings.
func shCode(script string) string {
	var b strings.Builder
	for line := range strings.Lines(script) {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// OptRestartBackoff (plan option, tests only) scales the in-place restart
// back-off down: the first wait, e.g. 300ms (max 30×); else
// $JOBSHIFT_TEST_RESTART_BACKOFF, else the kubelet's 10s/300s.
const OptRestartBackoff = "restart_backoff"

// restartBackoff is the back-off the restart loop waits.
func restartBackoff(opts map[string]string) (completion.Backoff, error) {
	if v := opts[OptRestartBackoff]; v != "" {
		return completion.ParseBackoff(v)
	}
	return completion.ParseBackoff(os.Getenv(completion.BackoffEnv))
}

// restartLoop wraps the command of a role whose tasks restart in place
// (completion.RestartsPossible: the shape's WrapRestart) in
// sh/restart-loop.sh: a Nomad task ends with its command otherwise (the
// group's restart policy is attempts 0, mode fail). The loop travels as
// `sh -c` text in the task's args (no file template, as the stop wrapper:
// TestRestartLoopInArgs), the user's argv after it unchanged. A container
// without `command` runs its image's ENTRYPOINT, which cannot be wrapped:
// the shape does not restart such a role in place (and warns).
//
// With fin, the loop execs the in-task finisher at its end (withFinisher).
func (r *renderer) restartLoop(role *jobs.Role, uc *userCommand, drain bool, fin string) *userCommand {
	job := r.plan.Job
	k := 0
	for i, x := range job.Roles {
		if x == role {
			k = i
		}
	}
	bo, err := restartBackoff(r.plan.Options)
	if err != nil {
		r.errorf(role.Pos, "Invalid restart back-off", "%v", err)
		return uc
	}
	script := completion.RestartShellData(job, bo) + fmt.Sprintf("_t_role=%d\n", k) + withFinisher(withDrain(shCode(completion.RestartShell+shRestartLoop), "_k", drain), "_k", fin)
	return &userCommand{argv: append([]string{"/bin/sh", "-c", script, restartArg0}, uc.argv...),
		file: uc.file, wrapped: true}
}

// restartArg0 is the restart loop's $0 (its name in ps).
const restartArg0 = "jobshift-restart"
