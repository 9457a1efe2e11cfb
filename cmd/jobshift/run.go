package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func init() {
	register("run", "Run a job and follow it to its end: on this machine (default), Nomad or Slurm", runRun)
}

const runHelp = `
Usage: jobshift run [options] FILE

  Runs a training job of one of the formats below, unchanged, and follows
  it until the completion rules of its platform end it. It prints
  "submitted TARGET job HANDLE" as soon as the job is submitted; the
  handle (e.g. nomad:alice~mesh, slurm:4242, local:DIR) is what status,
  logs and stop take.

  {{formats}}

  Exit status (README "Exit codes"): 0 when the job succeeded; the deciding
  task's exit code when it failed (1 when that code is not 1-255); 130
  after Ctrl-C, 143 after SIGTERM (128+signal); 2 for usage errors and
  jobs the target cannot place (or, on Nomad, a running job of the same
  ID: see -force); 1 for an invalid job or any other failure.

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

  On Nomad the job ID is <user>~<job> (as OpenPAI named jobs), so users do
  not replace each other's jobs; a submit never replaces a running job of
  the same ID unless -force. -plan shows Nomad's diff and placements first.
  Flags may also follow FILE.

Examples:
  jobshift run examples/pai-v1-ps-worker.json
  jobshift run -grace 3s -run-dir /tmp/r1 examples/tfjob-mesh.yaml
  jobshift run -to nomad job.yaml
  jobshift run -to nomad -plan job.yaml
  jobshift run job.yaml -to slurm -detach
  jobshift run -json job.yaml | jq -c 'select(.type=="result")'
`

// runFlags are run's own options (the job-reading ones are jobFlags).
type runFlags struct {
	to     string
	detach bool
	runDir string
	grace  time.Duration
	docker bool
	plain  bool
	json   bool
	plan   bool
	force  bool
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
	fs.BoolVar(&rf.json, "json", false, "Print one JSON object per line on stdout (diagnostics, submitted, events, result); task output goes to stderr.")
	fs.BoolVar(&rf.plan, "plan", false, "Show what the target would do (Nomad: the diff against the registered job and the placements) and submit nothing.")
	fs.BoolVar(&rf.force, "force", false, "Nomad: replace a running job of the same ID (by default a submit never replaces one).")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift run: want exactly one job FILE (see jobshift run -h)")
		return exitUsage
	}
	if rf.detach && rf.to == local.Name {
		fmt.Fprintln(stderr, "jobshift run: -detach is not available with -to local: local tasks are children of this "+
			"jobshift process and end with it. Keep it in the foreground (or in tmux/nohup), or use -to nomad / -to slurm.")
		return exitUsage
	}
	emitDiags := func(diags hcl.Diagnostics) { printDiags(stderr, diags) }
	if rf.json {
		emitDiags = func(diags hcl.Diagnostics) {
			for _, d := range diag.From(diags, sourceOf) {
				writeEvent(stdout, runEvent{Type: "diagnostic", Diagnostic: &d})
			}
		}
	}
	cfg, plan, code := jf.loadForTargetWith(fs.Arg(0), emitDiags)
	if code != exitOK {
		return code
	}
	// Whether this process follows the job is an input of its shape
	// (drivers/nomad/shape.go): -detach leaves it to nothing, or to a
	// controller, so the job must meet and judge without a watcher.
	plan.Options[nomad.OptWatched] = strconv.FormatBool(!rf.detach)
	if rf.plan {
		return runPlan(rf, cfg, plan, stdout, stderr)
	}

	// From here on tasks may run: output is best-effort and never blocks
	// (a closed or stalled stdout must not stall the job or the reaction to
	// a stop signal). Queued output is written out before returning; the
	// signal handlers are gone by then (deferred earlier, run later), so a
	// Ctrl-C ends a jobshift stuck on a paused terminal after its job ended.
	survivePipe()
	width := terminalWidth(stdout)
	outSink, errSink := newOutSink(stdout), newOutSink(stderr)
	defer func() { outSink.close(nil); errSink.close(nil) }()
	stdout, stderr = outSink, errSink
	var view *progress
	var taskOut io.Writer
	if rf.json {
		// stdout holds only JSON lines: task output goes to stderr.
		view = newProgress(io.Discard, nil, plan.Job)
		taskOut = stderr
	} else {
		if rf.plain {
			width = nil
		}
		view = newProgress(stdout, width, plan.Job)
		taskOut = view
	}
	opts := map[string]string{}
	if rf.to == local.Name {
		opts[local.OptRunDir] = rf.runDir
		opts[local.OptGrace] = rf.grace.String()
		opts[local.OptDocker] = strconv.FormatBool(rf.docker)
	}
	if rf.force {
		opts[nomad.OptForce] = "true"
	}
	drv, err := drivers.New(rf.to, drivers.Config{Site: cfg, Options: opts, Output: taskOut, Warnings: stderr})
	if err != nil {
		if errors.Is(err, drivers.ErrUnavailable) {
			fmt.Fprintf(stderr, "jobshift run: driver %s is not available: %v\n", rf.to, err)
			return exitUsage
		}
		fmt.Fprintf(stderr, "jobshift run: %v\n", err)
		return exitInvalid
	}

	// Signals are caught before anything starts, so a Ctrl-C at any moment
	// goes through Stop and leaves nothing behind.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	defer signal.Stop(sigs)

	ctx := context.Background()
	h, err := drv.Submit(ctx, plan)
	if err != nil {
		if rf.json {
			emitDiags(submitDiags(err, plan))
		} else {
			printTargetError(stderr, "run", rf.to, err)
		}
		return submitExitCode(err)
	}
	// The handle first, at once: a script (or a user who closes the
	// terminal) has it even if jobshift dies while following.
	if rf.json {
		writeEvent(stdout, runEvent{Type: "submitted", Handle: h.String(), Target: h.Driver})
	} else {
		view.println(fmt.Sprintf("submitted %s job %s", h.Driver, h))
	}
	if rf.detach {
		return exitOK
	}
	events, err := drv.Watch(ctx, h)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift run: watching %s: %v\n", h, err)
		_ = drv.Stop(ctx, h)
		return exitInvalid
	}
	var sigMu sync.Mutex
	var firstSig os.Signal
	go func() {
		for sig := range sigs {
			sigMu.Lock()
			if firstSig == nil {
				firstSig = sig
			}
			sigMu.Unlock()
			// Stop first: the note is only output.
			go func() { _ = drv.Stop(ctx, h) }()
			msg := fmt.Sprintf("%s: stopping the job (again to kill at once)", sig)
			if rf.json {
				writeEvent(stdout, runEvent{Type: "note", Message: msg})
			} else {
				view.note(msg)
			}
		}
	}()

	var final *drivers.Result
	for e := range events {
		if rf.json {
			writeEvent(stdout, runEvent{Type: "event", Event: &e})
		} else {
			view.event(e)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	// The verdict is shown even when task output was being dropped.
	stdout, stderr = outSink.final(), errSink.final()
	view.done(stdout)
	if final == nil {
		fmt.Fprintf(stderr, "jobshift run: the event stream of %s ended without a result\n", h)
		return exitInvalid
	}
	code = jobExitCode(final)
	sigMu.Lock()
	if firstSig != nil {
		code = signalExitCode(firstSig) // interrupted, as a shell reports it
	}
	sigMu.Unlock()
	if rf.json {
		writeEvent(stdout, runEvent{Type: "result", Handle: h.String(), Result: final, Exit: &code})
		return code
	}
	fmt.Fprintf(stdout, "job %s %s (exit code %d) after %d attempt(s): %s\n",
		plan.Job.Name, phaseText(stdout, string(final.Phase)), final.ExitCode, final.Attempts, final.Reason)
	if h.Driver == local.Name {
		fmt.Fprintf(stdout, "output: %s\n", h.ID)
	}
	return code
}

// runPlan prints what submitting would do, and submits nothing.
func runPlan(rf runFlags, cfg *siteconfig.Config, plan *translate.Plan, stdout, stderr io.Writer) int {
	drv, err := drivers.New(rf.to, drivers.Config{Site: cfg, Warnings: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "jobshift run: %v\n", err)
		return exitUsage
	}
	p, ok := drv.(drivers.Planner)
	if !ok {
		fmt.Fprintf(stderr, "jobshift run -plan: the %s driver has no plan; 'jobshift convert -to %s' shows what it would submit\n", rf.to, rf.to)
		return exitUsage
	}
	out, err := p.PlanDiff(context.Background(), plan)
	if err != nil {
		printTargetError(stderr, "run", rf.to, err)
		return submitExitCode(err)
	}
	fmt.Fprint(stdout, out)
	return exitOK
}

// runEvent is one line of run -json (and status -follow -json). Type says
// which fields are set: "diagnostic" (Diagnostic), "submitted" (Handle,
// Target), "event" (Event: a task's state or a job message), "note"
// (Message: from jobshift itself, e.g. a signal), "result" (Handle,
// Result, and Exit: jobshift's own exit code).
type runEvent struct {
	Type       string           `json:"type"`
	Time       time.Time        `json:"time"`
	Handle     string           `json:"handle,omitempty"`
	Target     string           `json:"target,omitempty"`
	Diagnostic *diag.Diagnostic `json:"diagnostic,omitempty"`
	Event      *drivers.Event   `json:"event,omitempty"`
	Message    string           `json:"message,omitempty"`
	Result     *drivers.Result  `json:"result,omitempty"`
	Exit       *int             `json:"exit,omitempty"`
}

// writeEvent writes e as one line (one Write: lines never interleave).
func writeEvent(w io.Writer, e runEvent) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(e) == nil {
		_, _ = w.Write(b.Bytes())
	}
}

// submitDiags is a refused submit as diagnostics (located when the target
// refused the job itself).
func submitDiags(err error, plan *translate.Plan) hcl.Diagnostics {
	if d, ok := diag.Of(err); ok {
		return d
	}
	return hcl.Diagnostics{cmdError("Submit failed", "%v", err)}
}

// terminalWidth returns, when w is a terminal (not merely a character
// device: /dev/null is one too), a function giving its current width, so
// the status line always fits, also after the window is resized; nil
// otherwise.
func terminalWidth(w io.Writer) func() int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	fd := int(f.Fd())
	return func() int {
		if cols, _, err := term.GetSize(fd); err == nil && cols > 0 {
			return cols
		}
		return 80
	}
}
