package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/hcl"
)

func init() {
	register("status", "Show a submitted job's tasks and result (-to nomad|slurm|...)", runStatus)
	register("stop", "Stop a submitted job (-to nomad|slurm|...)", runStop)
	register("logs", "Print a task's output of a submitted job (-to nomad|slurm|...)", runLogs)
}

// targetFlags are the flags status, stop and logs share: the target and
// the site config; the job is the positional argument (the handle ID).
type targetFlags struct {
	to     string
	config string
}

func (f *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "nomad", "Target `driver` the job was submitted to.")
	fs.StringVar(&f.config, "config", "", "Site config `file` (default: the usual lookup).")
	addPluginDirFlag(fs) // the target may be an external plugin
}

func (f *targetFlags) driver(stderr io.Writer) (drivers.Driver, bool) {
	cfg, diags := hcl.LoadConfig(f.config)
	printDiags(stderr, diags)
	if diags.HasErrors() {
		return nil, false
	}
	d, err := drivers.New(f.to, drivers.Config{Site: cfg, Warnings: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "jobshift: %v\n", err)
		return nil, false
	}
	return d, true
}

const statusHelp = `
Usage: jobshift status [-to TARGET] JOB

  Follows the job until now: one line per task state, then the job's result
  if it has ended (jobshift records it; Nomad's "dead" says nothing about
  success). A running job keeps being followed and enforced until it ends;
  Ctrl-C stops following, not the job.
`

func runStatus(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("status", statusHelp, stderr)
	var tf targetFlags
	tf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift status: want exactly one JOB")
		return 1
	}
	d, ok := tf.driver(stderr)
	if !ok {
		return 1
	}
	ev, err := d.Watch(context.Background(), drivers.Handle{Driver: tf.to, ID: fs.Arg(0)})
	if err != nil {
		fmt.Fprintf(stderr, "jobshift status: %v\n", err)
		return 1
	}
	code := 1
	for e := range ev {
		switch {
		case e.Final != nil:
			fmt.Fprintf(stdout, "job %s %s (exit code %d) after %d attempt(s): %s\n", fs.Arg(0), e.Final.Phase, e.Final.ExitCode, e.Final.Attempts, e.Final.Reason)
			if e.Final.Phase == "succeeded" {
				code = 0
			}
		case e.Task != nil:
			fmt.Fprintf(stdout, "%s-%d %s", e.Task.Role, e.Task.Index, e.State)
			if e.State == "failed" || e.State == "succeeded" {
				fmt.Fprintf(stdout, " (exit code %d)", e.ExitCode)
			}
			fmt.Fprintln(stdout)
		case e.Message != "":
			fmt.Fprintln(stdout, e.Message)
		}
	}
	return code
}

func runStop(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stop", "\nUsage: jobshift stop [-to TARGET] JOB\n", stderr)
	var tf targetFlags
	tf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift stop: want exactly one JOB")
		return 1
	}
	d, ok := tf.driver(stderr)
	if !ok {
		return 1
	}
	if err := d.Stop(context.Background(), drivers.Handle{Driver: tf.to, ID: fs.Arg(0)}); err != nil {
		fmt.Fprintf(stderr, "jobshift stop: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "stopped %s\n", fs.Arg(0))
	return 0
}
