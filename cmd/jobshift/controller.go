package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
)

func init() {
	register("controller", "Watch every jobshift job on a Nomad cluster and enforce its completion rules", runController)
}

const controllerHelp = `
Usage: jobshift controller [-config FILE] [-every 30s]

  Runs until stopped: finds every job jobshift rendered on the Nomad
  cluster (NOMAD_ADDR, or the site config's nomad.address), and does for
  each what 'jobshift run' does for its own: stops never-ending roles when
  the completion rule fires, records success or failure, retries failed
  attempts per the job's policy, and stops jobs that could not be fully
  placed within nomad.barrier_timeout. It keeps no state of its own, so it
  can run as a Nomad service job and resume after a restart.
`

func runController(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("controller", controllerHelp, stderr)
	var tf targetFlags
	tf.register(fs)
	every := fs.Duration("every", 30*time.Second, "Longest wait between job list refreshes.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	tf.to = nomad.TargetHCL
	d, ok := tf.driver(stderr)
	if !ok {
		return 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ct := &nomad.Controller{D: d.(*nomad.Driver), Log: stdout, Every: *every}
	if err := ct.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "jobshift controller: %v\n", err)
		return 1
	}
	return 0
}

var _ drivers.Driver = (*nomad.Driver)(nil)

func init() {
	register("nomad-finish", "(internal) The poststop finisher of a Nomad job: apply its completion rule once", runNomadFinish)
}

// runNomadFinish runs inside a Nomad task (drivers/nomad finisher.go).
func runNomadFinish(args []string, stdout, stderr io.Writer) int {
	id, alloc := os.Getenv("NOMAD_JOB_ID"), os.Getenv("NOMAD_ALLOC_ID")
	if id == "" || alloc == "" {
		fmt.Fprintln(stderr, "jobshift nomad-finish: runs only inside a Nomad task (NOMAD_JOB_ID, NOMAD_ALLOC_ID unset)")
		return 1
	}
	d, err := nomad.NewInTask()
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-finish: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.Finish(ctx, id, alloc, func(s string) { fmt.Fprintln(stdout, "jobshift-finish: "+s) }); err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-finish: %v\n", err)
		return 1
	}
	return 0
}
