package drivertest

import (
	"strconv"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// LingerAfter keeps every task of plan alive for secs seconds after its
// command ended (with the command's exit code). For jobs whose tasks only
// print their environment and exit: on Nomad a task whose env template
// renders after a peer has already ended no longer finds that peer's
// registration and fails loudly — a known limit of the Nomad target until one
// topology snapshot per attempt replaces the live service reads (issue
// "Performance and scale"). Real training peers wait for each other.
func LingerAfter(plan *translate.Plan, secs int) {
	s := strconv.Itoa(secs)
	for _, r := range plan.Job.Roles {
		switch r.Command.Kind {
		case jobs.CommandBashScript, jobs.CommandEval:
			r.Command.Script += "\nsleep " + s
		case jobs.CommandArgv:
			argv := append(append([]string(nil), r.Command.Command...), r.Command.Args...)
			r.Command.Command = []string{"/bin/sh", "-c", `"$@"; rc=$?; sleep ` + s + `; exit $rc`, "sh"}
			r.Command.Args = argv
		}
	}
}
