package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/jobshift/jobshift/drivers/nomad"
)

func init() {
	register(nomad.WaitCommand, "(internal) The prestart task of a Nomad job's role that depends on others: wait until they are Ready or Complete", runNomadWait)
}

// runNomadWait is `nomad-wait ROLE=STATUS...` (drivers/nomad depwait.go):
// 0 once the role may start, 1 when it never may (its allocation then
// fails, and with it the attempt) or the job cannot be read.
func runNomadWait(args []string, stdout, stderr io.Writer) int {
	id := os.Getenv("NOMAD_JOB_ID")
	if id == "" {
		fmt.Fprintln(stderr, "jobshift nomad-wait: runs only inside a Nomad task (NOMAD_JOB_ID unset)")
		return 1
	}
	deps, err := nomad.ParseDeps(args)
	if err != nil || len(deps) == 0 {
		fmt.Fprintf(stderr, "jobshift nomad-wait: want ROLE=Ready or ROLE=Complete arguments: %v\n", err)
		return 2
	}
	d, err := nomad.NewInTask()
	if err == nil {
		err = d.WaitDeps(context.Background(), id, deps, func(s string) { fmt.Fprintln(stdout, "jobshift-wait: "+s) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-wait: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "jobshift-wait: every dependency holds; the role starts")
	return 0
}
