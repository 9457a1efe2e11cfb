package main

import (
	"fmt"
	"io"

	"github.com/jobshift/jobshift/jobs/diag"
)

// printTargetError prints a driver's refusal of the job as the diagnostics
// the driver located (every problem, `file:line:col: error: ...` like the
// readers' errors), and any other driver error, one that is not about the
// job (a cluster that does not answer...), as "jobshift CMD: error".
func printTargetError(w io.Writer, cmd string, err error) {
	if d, ok := diag.Of(err); ok {
		printDiags(w, d)
		return
	}
	fmt.Fprintf(w, "jobshift %s: %v\n", cmd, err)
}
