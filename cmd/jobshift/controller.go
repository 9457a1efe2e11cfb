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
