package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/translate/completion"
)

func init() {
	register("run", "Run a job and follow it to its end: on this machine (default), Nomad or Slurm", runRun)
}

const runHelp = `
Usage: jobshift run [options] FILE

  Runs an OpenPAI (v1 JSON, v2 YAML) or Kubeflow (TFJob, PyTorchJob) job,
  unchanged, and follows it until the completion rules of its platform end
  it. The exit code is 0 when the job succeeded and 1 otherwise.

  With -to local (the default) every task is a process on this machine with
  the environment its platform gave it (PAI_*, TF_CONFIG, MASTER_ADDR, ...)
  on 127.0.0.1 and free ports. Tasks run in the current directory; their
  output is printed prefixed with [role-index] and kept under the run
  directory. Images are not run unless -docker is given. Ctrl-C (or SIGTERM,
  SIGHUP, SIGQUIT) stops every task (SIGTERM, then SIGKILL after -grace); a
  second one kills at once. If jobshift itself is killed, each task's
  supervisor stops the task the same way. Output is best-effort: a closed or
  stalled stdout never stops or slows the job (the run directory keeps it
  all).

Examples:
  jobshift run examples/pai-v1-ps-worker.json
  jobshift run -grace 3s -run-dir /tmp/r1 examples/tfjob-mesh.yaml
  jobshift run -to nomad job.yaml
`

// runFlags are run's own options (the job-reading ones are jobFlags).
type runFlags struct {
	to     string
	detach bool
	runDir string
	grace  time.Duration
	docker bool
	plain  bool
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", runHelp, stderr)
	addPluginDirFlag(fs)
	var jf jobFlags
	jf.register(fs)
	var rf runFlags
	fs.StringVar(&rf.to, "to", local.Name, "Target `driver`: local, nomad, slurm, or an external plugin's name.")
	fs.BoolVar(&rf.detach, "detach", false, "Submit and return at once, printing the job's handle (not for local).")
	fs.StringVar(&rf.runDir, "run-dir", "", "Local: run `directory` for task output (may exist, but not hold another run). Default: ./.jobshift/runs/<job>-<time>.")
	fs.DurationVar(&rf.grace, "grace", local.DefaultGrace, "Local: time between SIGTERM and SIGKILL when tasks are stopped.")
	fs.BoolVar(&rf.docker, "docker", false, "Local: run each task in its image (docker run --network host).")
	fs.BoolVar(&rf.plain, "plain", false, "Print one line per event even on a terminal.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift run: want exactly one job FILE (see jobshift run -h)")
		return 1
	}
	if rf.detach && rf.to == local.Name {
		fmt.Fprintln(stderr, "jobshift run: -detach is not available with -to local: local tasks are children of this "+
			"jobshift process and end with it. Keep it in the foreground (or in tmux/nohup), or use -to nomad / -to slurm.")
		return 1
	}
	cfg, plan, ok := jf.loadForTarget(fs.Arg(0), stderr)
	if !ok {
		return 1
	}

	// From here on tasks may run: output is best-effort and never blocks
	// (a closed or stalled stdout must not stall the job or the reaction to
	// a stop signal). Queued output is written out before returning; the
	// signal handlers are gone by then (deferred earlier, run later), so a
	// Ctrl-C ends a jobshift stuck on a paused terminal after its job ended.
	survivePipe()
	tty := isTerminal(stdout)
	outSink, errSink := newOutSink(stdout), newOutSink(stderr)
	defer func() { outSink.close(nil); errSink.close(nil) }()
	stdout, stderr = outSink, errSink
	view := newProgress(stdout, tty && !rf.plain, plan.Job)
	opts := map[string]string{}
	if rf.to == local.Name {
		opts[local.OptRunDir] = rf.runDir
		opts[local.OptGrace] = rf.grace.String()
		opts[local.OptDocker] = strconv.FormatBool(rf.docker)
	}
	drv, err := drivers.New(rf.to, drivers.Config{Site: cfg, Options: opts, Output: view, Warnings: stderr})
	if err != nil {
		if errors.Is(err, drivers.ErrUnavailable) {
			fmt.Fprintf(stderr, "jobshift run: driver %s is not available: %v\n", rf.to, err)
		} else {
			fmt.Fprintf(stderr, "jobshift run: %v\n", err)
		}
		return 1
	}

	// Signals are caught before anything starts, so a Ctrl-C at any moment
	// goes through Stop and leaves nothing behind.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	defer signal.Stop(sigs)

	ctx := context.Background()
	h, err := drv.Submit(ctx, plan)
	if err != nil {
		printTargetError(stderr, "run", err, plan)
		return 1
	}
	if rf.detach {
		fmt.Fprintf(stdout, "submitted %s job %s\n", h.Driver, h.ID)
		return 0
	}
	events, err := drv.Watch(ctx, h)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift run: watching %s: %v\n", h.ID, err)
		_ = drv.Stop(ctx, h)
		return 1
	}
	go func() {
		for sig := range sigs {
			// Stop first: the note is only output.
			go func() { _ = drv.Stop(ctx, h) }()
			view.note(fmt.Sprintf("%s: stopping the job (again to kill at once)", sig))
		}
	}()

	var final *drivers.Result
	for e := range events {
		view.event(e)
		if e.Final != nil {
			final = e.Final
		}
	}
	// The verdict is shown even when task output was being dropped.
	stdout, stderr = outSink.final(), errSink.final()
	view.done(stdout)
	if final == nil {
		fmt.Fprintf(stderr, "jobshift run: the event stream of %s ended without a result\n", h.ID)
		return 1
	}
	fmt.Fprintf(stdout, "job %s %s (exit code %d) after %d attempt(s): %s\n",
		plan.Job.Name, final.Phase, final.ExitCode, final.Attempts, final.Reason)
	if h.Driver == local.Name {
		fmt.Fprintf(stdout, "output: %s\n", h.ID)
	}
	if final.Phase == completion.PhaseSucceeded {
		return 0
	}
	return 1
}

// isTerminal reports whether w is a character device (a terminal), where
// the progress line can be rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
