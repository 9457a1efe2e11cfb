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
Usage: jobshift logs [-to TARGET] [-stderr] [-f] JOB [ROLE-INDEX]

  Prints one task's output (e.g. worker-0); without a task, the first one's.
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
		return 1
	}
	opts := drivers.LogOptions{Stderr: *errStream, Follow: *follow}
	if fs.NArg() == 2 {
		t := fs.Arg(1)
		i := strings.LastIndexByte(t, '-')
		n, err := strconv.Atoi(t[i+1:])
		if i <= 0 || err != nil {
			fmt.Fprintf(stderr, "jobshift logs: task %q is not ROLE-INDEX (e.g. worker-0)\n", t)
			return 1
		}
		opts.Task = &completion.TaskRef{Role: t[:i], Index: n}
	}
	d, ok := tf.driver(stderr)
	if !ok {
		return 1
	}
	rc, err := d.Logs(context.Background(), drivers.Handle{Driver: tf.to, ID: fs.Arg(0)}, opts)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift logs: %v\n", err)
		return 1
	}
	defer rc.Close()
	if _, err := io.Copy(stdout, rc); err != nil {
		fmt.Fprintf(stderr, "jobshift logs: %v\n", err)
		return 1
	}
	return 0
}
