package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/local"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

func init() {
	register("status", "Show submitted jobs as they are now (-follow to follow one)", runStatus)
	register("watch", "Follow a submitted job until it ends (status -follow)", runWatch)
	register("stop", "Stop a submitted job", runStop)
	register("logs", "Print a task's output of a submitted job", runLogs)
}

// targetFlags are the flags status, stop and logs share: the target and
// the site config; the job is a handle (TARGET:ID as run prints it).
type targetFlags struct {
	to     string
	config string
}

func (f *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.to, "to", "", "Target `driver` of a bare job ID (default nomad); not needed for a handle TARGET:ID.")
	fs.StringVar(&f.config, "config", "", "Site config `file` (default: the usual lookup).")
	addPluginDirFlag(fs) // the target may be an external plugin
}

// handle reads a job argument: TARGET:ID, or a bare ID of -to's target
// (nomad when -to is absent, as before handles named their target).
func (f *targetFlags) handle(arg string) (drivers.Handle, error) {
	def := f.to
	if def == "" {
		def = nomad.TargetHCL
	}
	return drivers.ParseHandle(arg, def, f.to != "")
}

func (f *targetFlags) site(stderr io.Writer) (*siteconfig.Config, bool) {
	cfg, diags := siteconfig.LoadConfig(f.config)
	printDiags(stderr, diags)
	return cfg, !diags.HasErrors()
}

func (f *targetFlags) driver(stderr io.Writer) (drivers.Driver, bool) {
	return f.driverFor(f.to, stderr)
}

func (f *targetFlags) driverFor(target string, stderr io.Writer) (drivers.Driver, bool) {
	cfg, ok := f.site(stderr)
	if !ok {
		return nil, false
	}
	d, err := drivers.New(target, drivers.Config{Site: cfg, Warnings: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "jobshift: %v\n", err)
		return nil, false
	}
	return d, true
}

const statusHelp = `
Usage: jobshift status [options] [JOB...]

  Prints each JOB as it is now and returns: its phase (pending, running,
  succeeded, failed, stopped), the verdict jobshift recorded, and every
  task's state. JOB is the handle run printed: TARGET:ID (nomad:alice~mesh,
  slurm:4242, local:/path/to/run-dir); a bare ID means -to's target
  (default nomad). With no JOB, lists every jobshift job the targets show:
  local runs of this directory, Nomad jobs of your namespace, your Slurm
  jobs (with -to, only that target's).

  -follow (or 'jobshift watch JOB') keeps printing task changes until the
  job ends, then exits with the job's code, like run. Following only reads:
  it never stops, retries or resubmits the job. -enforce follows as run
  does, applying the job's completion and retry rules (for a Nomad job
  that no run or controller watches).

  Exit status: 0 when every JOB was shown (whatever its phase), 1 when one
  was not found, 2 for usage errors; with -follow, the job's exit code.

Examples:
  jobshift status
  jobshift status nomad:alice~mesh-ps-worker
  jobshift status -json slurm:4242 | jq -r .phase
  jobshift watch nomad:alice~mesh-ps-worker
`

const watchHelp = `
Usage: jobshift watch [options] JOB

  Follows JOB (the handle run printed: nomad:alice~mesh, slurm:4242,
  local:/path/to/run-dir) until it ends, printing task changes, then exits
  with the job's code, like run; the same as 'jobshift status -follow JOB'.
  Following only reads: it never stops, retries or resubmits the job;
  -enforce applies the job's completion and retry rules as run does.

Examples:
  jobshift watch nomad:alice~mesh-ps-worker
  jobshift watch -json slurm:4242
`

func runWatch(args []string, stdout, stderr io.Writer) int {
	return statusCommand("watch", watchHelp, append([]string{"-follow"}, args...), stdout, stderr)
}

func runStatus(args []string, stdout, stderr io.Writer) int {
	return statusCommand("status", statusHelp, args, stdout, stderr)
}

func statusCommand(name, help string, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(name, help, stderr)
	var tf targetFlags
	tf.register(fs)
	follow := fs.Bool("follow", false, "Follow the job until it ends (read only).")
	enforce := fs.Bool("enforce", false, "With -follow: apply the job's completion and retry rules while following (stops and resubmits as run would).")
	asJSON := fs.Bool("json", false, "Print JSON: one object per JOB (an array when listing); with -follow, one event per line.")
	every := fs.Duration("interval", 2*time.Second, "With -follow: time between looks at the job.")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *enforce && !*follow {
		fmt.Fprintln(stderr, "jobshift status: -enforce applies to -follow only")
		return exitUsage
	}
	if *follow {
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "jobshift status -follow: want exactly one JOB")
			return exitUsage
		}
		return followJob(&tf, fs.Arg(0), *enforce, *asJSON, *every, stdout, stderr)
	}
	if fs.NArg() == 0 {
		return listJobs(&tf, *asJSON, stdout, stderr)
	}
	code := exitOK
	var all []*drivers.Status
	for _, arg := range fs.Args() {
		h, err := tf.handle(arg)
		if err != nil {
			fmt.Fprintf(stderr, "jobshift status: %v\n", err)
			return exitUsage
		}
		st, err := inspect(&tf, h, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "jobshift status: %v\n", err)
			printUnavailableFix(stderr, h.Driver, err)
			code = exitInvalid
			continue
		}
		all = append(all, st)
	}
	if *asJSON {
		for _, st := range all {
			if c := writeJSON(stdout, stderr, st); c != exitOK {
				return c
			}
		}
		return code
	}
	for i, st := range all {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printStatus(stdout, st)
	}
	return code
}

// inspect asks h's driver for a snapshot.
func inspect(tf *targetFlags, h drivers.Handle, stderr io.Writer) (*drivers.Status, error) {
	d, ok := tf.driverFor(h.Driver, stderr)
	if !ok {
		return nil, fmt.Errorf("target %s not usable", h.Driver)
	}
	in, ok := d.(drivers.Inspector)
	if !ok {
		return nil, fmt.Errorf("%s: the %s driver cannot show a job without following it (use status -follow): %w", h, h.Driver, drivers.ErrUnsupported)
	}
	return in.Inspect(context.Background(), h)
}

// printStatus prints one snapshot.
func printStatus(w io.Writer, st *drivers.Status) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "job\t%s\n", st.Handle)
	if st.Name != "" {
		fmt.Fprintf(tw, "name\t%s\n", st.Name)
	}
	if st.User != "" {
		fmt.Fprintf(tw, "user\t%s\n", st.User)
	}
	if !st.Submitted.IsZero() {
		fmt.Fprintf(tw, "submitted\t%s\n", st.Submitted.Local().Format(time.DateTime))
	}
	phase := string(st.Phase)
	if st.Ended() && st.Phase != completion.PhaseSucceeded {
		phase += fmt.Sprintf(" (exit code %d)", st.ExitCode)
	}
	fmt.Fprintf(tw, "phase\t%s\n", phase)
	fmt.Fprintf(tw, "attempt\t%d\n", st.Attempt+1)
	if st.Reason != "" {
		fmt.Fprintf(tw, "reason\t%s\n", st.Reason)
	}
	tw.Flush()
	if len(st.Tasks) == 0 {
		fmt.Fprintln(w, "tasks: none placed yet")
		return
	}
	fmt.Fprintln(w, "tasks:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range st.Tasks {
		s := fmt.Sprintf("  %s-%d\t%s", t.Role, t.Index, t.State)
		if t.State.Terminal() {
			s += fmt.Sprintf(" (exit code %d)", t.ExitCode)
		}
		if t.Message != "" {
			s += "\t" + oneLine(t.Message)
		}
		fmt.Fprintln(tw, s)
	}
	tw.Flush()
}

// listTargets are the targets status lists without -to.
var listTargets = []string{local.Name, nomad.TargetHCL, slurm.Name}

// listJobs prints every jobshift job the targets show. Without -to, a
// target that is not there (no Nomad agent, no squeue) is left out
// quietly: most machines have one of them.
func listJobs(tf *targetFlags, asJSON bool, stdout, stderr io.Writer) int {
	targets, explicit := listTargets, tf.to != ""
	if explicit {
		targets = []string{tf.to}
	}
	all := []drivers.Status{}
	code := exitOK
	for _, t := range targets {
		d, ok := tf.driverFor(t, stderr)
		if !ok {
			return exitInvalid
		}
		l, ok := d.(drivers.Lister)
		if !ok {
			fmt.Fprintf(stderr, "jobshift status: the %s driver cannot list its jobs (name one: jobshift status %s:ID)\n", t, t)
			code = exitInvalid
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		sts, err := l.List(ctx)
		cancel()
		if err != nil {
			switch {
			case explicit || !errors.Is(err, drivers.ErrUnavailable):
				fmt.Fprintf(stderr, "jobshift status: %s: %v\n", t, err)
				printUnavailableFix(stderr, t, err)
				code = exitInvalid
			case targetConfigured(t, tf):
				// named in the environment or the site config, so
				// expected here: its jobs are missing from the list
				fmt.Fprintf(stderr, "jobshift status: %s not listed: %v\n", t, err)
				printUnavailableFix(stderr, t, err)
			}
			continue
		}
		all = append(all, sts...)
	}
	if asJSON {
		if c := writeJSON(stdout, stderr, all); c != exitOK {
			return c
		}
		return code
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no jobshift jobs")
		return code
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tNAME\tUSER\tPHASE\tTASKS\tSUBMITTED")
	for _, st := range all {
		sub := "-"
		if !st.Submitted.IsZero() {
			sub = st.Submitted.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", st.Handle, dash(st.Name), dash(st.User), st.Phase, taskCounts(st.Tasks), sub)
	}
	tw.Flush()
	return code
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// taskCounts is e.g. "2 running, 1 succeeded".
func taskCounts(ts []drivers.TaskStatus) string {
	order := []completion.State{completion.Pending, completion.Running, completion.Succeeded, completion.Failed, completion.Stopped}
	n := map[completion.State]int{}
	for _, t := range ts {
		n[t.State]++
	}
	var parts []string
	for _, s := range order {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// followJob follows a job until it ends. Read only unless enforce: it
// looks at the job again and again (Inspect) and prints what changed.
func followJob(tf *targetFlags, arg string, enforce, asJSON bool, every time.Duration, stdout, stderr io.Writer) int {
	h, err := tf.handle(arg)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift status: %v\n", err)
		return exitUsage
	}
	d, ok := tf.driverFor(h.Driver, stderr)
	if !ok {
		return exitInvalid
	}
	// Ctrl-C ends the following, never the job.
	ctx, cancel := signal.NotifyContext(context.Background(), stopSignals()...)
	defer cancel()
	var events <-chan drivers.Event
	if enforce {
		events, err = d.Watch(ctx, h)
	} else if in, ok := d.(drivers.Inspector); ok {
		events, err = pollEvents(ctx, in, h, every)
	} else {
		err = fmt.Errorf("the %s driver cannot be followed read-only; -enforce follows it as run does: %w", h.Driver, drivers.ErrUnsupported)
	}
	if err != nil {
		fmt.Fprintf(stderr, "jobshift status: %v\n", err)
		return exitInvalid
	}
	var final *drivers.Result
	for e := range events {
		if e.Final != nil {
			final = e.Final
		}
		if asJSON {
			writeEvent(stdout, runEvent{Type: "event", Event: &e})
			continue
		}
		switch {
		case e.Final != nil:
		case e.Task != nil:
			fmt.Fprintln(stdout, taskLine(e))
		case e.Message != "":
			fmt.Fprintln(stdout, e.Message)
		}
	}
	if final == nil {
		if ctx.Err() != nil {
			return exitOK // the user stopped following
		}
		fmt.Fprintf(stderr, "jobshift status: following %s ended without a result\n", h)
		return exitInvalid
	}
	code := jobExitCode(final)
	if asJSON {
		writeEvent(stdout, runEvent{Type: "result", Handle: h.String(), Result: final, Exit: &code})
	} else {
		fmt.Fprintf(stdout, "job %s %s (exit code %d) after %d attempt(s): %s\n", h, phaseText(stdout, string(final.Phase)), final.ExitCode, final.Attempts, final.Reason)
	}
	return code
}

// pollEvents turns snapshots into events: one per task state change, a
// message when the job's phase or reason changes, Final once it ended.
func pollEvents(ctx context.Context, in drivers.Inspector, h drivers.Handle, every time.Duration) (<-chan drivers.Event, error) {
	first, err := in.Inspect(ctx, h)
	if err != nil {
		return nil, err
	}
	out := make(chan drivers.Event)
	go func() {
		defer close(out)
		send := func(e drivers.Event) bool {
			e.Time = time.Now()
			select {
			case out <- e:
				return true
			case <-ctx.Done():
				return false
			}
		}
		seen := map[completion.TaskRef]completion.State{}
		attempt, phase := -1, completion.Phase("")
		for st := first; ; {
			if st.Attempt != attempt {
				attempt, seen = st.Attempt, map[completion.TaskRef]completion.State{}
			}
			if !st.Ended() && st.Phase != phase {
				phase = st.Phase
				if !send(drivers.Event{Attempt: attempt, Message: fmt.Sprintf("%s %s", h, st.Phase)}) {
					return
				}
			}
			for _, t := range st.Tasks {
				ref := completion.TaskRef{Role: t.Role, Index: t.Index}
				if seen[ref] == t.State {
					continue
				}
				seen[ref] = t.State
				if !send(drivers.Event{Attempt: attempt, Task: &ref, State: t.State, ExitCode: t.ExitCode, Message: t.Message}) {
					return
				}
			}
			if st.Ended() {
				send(drivers.Event{Attempt: attempt, Message: st.Reason,
					Final: &drivers.Result{Phase: st.Phase, ExitCode: st.ExitCode, Reason: st.Reason, Attempts: attempt + 1}})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
			next, err := in.Inspect(ctx, h)
			if err != nil {
				if ctx.Err() != nil || !send(drivers.Event{Attempt: attempt, Message: err.Error()}) {
					return
				}
				continue
			}
			st = next
		}
	}()
	return out, nil
}

const stopHelp = `
Usage: jobshift stop [options] JOB

  Stops every task of JOB (the handle run printed, TARGET:ID). A local run
  is stopped through the jobshift process that runs it (as Ctrl-C there).
`

func runStop(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stop", stopHelp, stderr)
	var tf targetFlags
	tf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "jobshift stop: want exactly one JOB")
		return exitUsage
	}
	h, err := tf.handle(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "jobshift stop: %v\n", err)
		return exitUsage
	}
	d, ok := tf.driverFor(h.Driver, stderr)
	if !ok {
		return exitInvalid
	}
	if err := d.Stop(context.Background(), h); err != nil {
		fmt.Fprintf(stderr, "jobshift stop: %v\n", err)
		return exitInvalid
	}
	fmt.Fprintf(stdout, "stopped %s\n", h)
	return exitOK
}
