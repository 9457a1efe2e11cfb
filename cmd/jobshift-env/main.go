// Command jobshift-env is jobshift's nomad-env in a binary of its own: the
// first process of every raw_exec task of a job `jobshift run` submits to
// Nomad, which evaluates the task's environment contract and execs the
// user's command (drivers/nomad taskenv.go, drivers/nomad/intask). It
// links only the Nomad API client and the contract, so it starts in about
// half the time of the whole jobshift binary, which links the plugin host,
// the readers and every driver: paid once per task at every job's start
// (BENCHMARKS.md). Sites name it with nomad { env_helper }; without it
// the jobshift binary (nomad { helper }) runs nomad-env the same way.
//
//	jobshift-env [nomad-env] -- COMMAND [ARG...]
package main

import (
	"os"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == intask.Command {
		args = args[1:] // the renderer writes `<helper> nomad-env -- ...` for either binary
	}
	os.Exit(intask.Main("jobshift-env", args, os.Stderr))
}
