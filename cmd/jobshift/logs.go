package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

const logsHelp = `
Usage: jobshift logs [options] JOB [ROLE-INDEX]

  Prints one task's output (e.g. worker-0); without a task, the first one's
  (local: the whole job's, prefixed). JOB is the handle run printed,
  TARGET:ID. -f keeps printing as the task writes until the job ends
  (local: across the task's restarts).
`

func runLogs(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("logs", logsHelp, stderr)
	var tf targetFlags
	tf.register(fs)
	errStream := fs.Bool("stderr", false, "Print standard error instead of standard output.")
	follow := fs.Bool("f", false, "Keep printing as the task writes.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "jobshift logs: want JOB and optionally ROLE-INDEX")
		return exitUsage
	}
	opts := drivers.LogOptions{Stderr: *errStream, Follow: *follow}
	if fs.NArg() == 2 {
		t := fs.Arg(1)
		i := strings.LastIndexByte(t, '-')
		n, err := strconv.Atoi(t[i+1:])
		if i <= 0 || err != nil {
			fmt.Fprintf(stderr, "jobshift logs: task %q is not ROLE-INDEX (e.g. worker-0)\n", t)
			return exitUsage
		}
		opts.Task = &completion.TaskRef{Role: t[:i], Index: n}
	}
	h, err := tf.handle(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "jobshift logs: %v\n", err)
		return exitUsage
	}
	d, ok := tf.driverFor(h.Driver, stderr)
	if !ok {
		return exitInvalid
	}
	rc, err := d.Logs(context.Background(), h, opts)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift logs: %v\n", err)
		printUnavailableFix(stderr, h.Driver, err)
		return 1
	}
	defer rc.Close()
	if _, err := io.Copy(stdout, rc); err != nil {
		fmt.Fprintf(stderr, "jobshift logs: %v\n", err)
		return 1
	}
	return 0
}
