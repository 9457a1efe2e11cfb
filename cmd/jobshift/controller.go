package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/nomad/intask"
)

func init() {
	register("controller", "Watch every jobshift job on a Nomad cluster and enforce its completion rules", runController)
}

const controllerHelp = `
Usage: jobshift controller [-config FILE] [-every 30s] [-namespace NS]

  Runs until stopped: finds every job jobshift rendered on the Nomad
  cluster (NOMAD_ADDR, or the site config's nomad.address), and does for
  each what 'jobshift run' does for its own: stops never-ending roles when
  the completion rule fires, records success or failure, retries failed
  attempts per the job's policy, and stops jobs that could not be fully
  placed within nomad.barrier_timeout. It keeps no state of its own, so it
  can run as a Nomad service job and resume after a restart. It serves
  every namespace its token may list (one namespace per user included)
  unless -namespace names one.
`

func runController(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("controller", controllerHelp, stderr)
	var tf targetFlags
	tf.register(fs)
	every := fs.Duration("every", 30*time.Second, "Longest wait between job list refreshes.")
	logJSON := fs.Bool("log-json", false, "Log one JSON object per line (go-hclog: @timestamp, @level, @message, job, ...).")
	logLevel := fs.String("log-level", "info", "Least `level` logged: trace, debug, info, warn, error.")
	namespace := fs.String("namespace", "*", "Watch the jobs of this Nomad `namespace` only (* = every one the token may list).")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	level := hclog.LevelFromString(*logLevel)
	if level == hclog.NoLevel {
		fmt.Fprintf(stderr, "jobshift controller: -log-level %q: use trace, debug, info, warn or error\n", *logLevel)
		return 2
	}
	tf.to = nomad.TargetHCL
	d, ok := tf.driver(stderr)
	if !ok {
		return 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	log := hclog.New(&hclog.LoggerOptions{Name: "jobshift-controller", Output: stdout, JSONFormat: *logJSON, Level: level})
	if id := os.Getenv("NOMAD_JOB_ID"); id != "" {
		// a controller job: its workload identity is what its namespace's
		// submitters could obtain by registering a job under its ID
		if why := nomad.ControllerPlacement(os.Getenv("NOMAD_NAMESPACE"), id); why != "" {
			log.Warn(why)
		}
	}
	ct := &nomad.Controller{D: d.(*nomad.Driver), Log: log, Every: *every, Namespace: *namespace}
	if err := ct.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "jobshift controller: %v\n", err)
		return 1
	}
	return 0
}

var _ drivers.Driver = (*nomad.Driver)(nil)

func init() {
	register("nomad-finish", "(internal) The poststop finisher of a Nomad job: apply its completion rule once", runNomadFinish)
	register(intask.Command, "(internal) Inside a Nomad task: wait for the topology snapshot, set the task's environment contract, exec the command", runNomadEnv)
	register("nomad-sshkey", "(internal) The prestart task of a Nomad job with the ssh emulation: make its job key unless it exists", runNomadSSHKey)
}

// runNomadEnv runs inside a Nomad task (drivers/nomad taskenv.go) as
// `nomad-env -- argv...`: on success it never returns (argv replaces it).
// cmd/jobshift-env is the same command in a binary of its own.
func runNomadEnv(args []string, stdout, stderr io.Writer) int {
	return intask.Main("jobshift "+intask.Command, args, stderr)
}

// runNomadSSHKey runs inside a Nomad task (drivers/nomad sshkey.go): the
// job key of a job submitted without jobshift (plain nomad job run).
func runNomadSSHKey(args []string, stdout, stderr io.Writer) int {
	id := os.Getenv("NOMAD_JOB_ID")
	if id == "" {
		fmt.Fprintln(stderr, "jobshift nomad-sshkey: runs only inside a Nomad task (NOMAD_JOB_ID unset)")
		return 1
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "jobshift nomad-sshkey: unexpected arguments %q\n", args)
		return 2
	}
	d, err := nomad.NewInTask()
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-sshkey: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	made, err := d.EnsureSSHKey(ctx, id)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-sshkey: %v\n", err)
		return 1
	}
	if made {
		fmt.Fprintf(stdout, "jobshift-sshkey: made the job key in Nomad Variable %s\n", nomad.VariablePath(id))
	}
	return 0
}

// runNomadFinish runs inside a Nomad task (drivers/nomad finisher.go):
// the poststop finisher; with -after-main the UAI groups' judge, which
// first waits for its allocation's training task to end and always exits 0
// (a failed task would make Nomad kill the parameter server beside it);
// with -exit CODE the in-task finisher, which the main task's wrapper
// execs once its command has ended for good with CODE.
func runNomadFinish(args []string, stdout, stderr io.Writer) int {
	id, alloc := os.Getenv("NOMAD_JOB_ID"), os.Getenv("NOMAD_ALLOC_ID")
	if len(args) == 2 && args[0] == nomad.FinishExit {
		return runNomadFinishEnded(id, alloc, args[1], stderr)
	}
	if id == "" || alloc == "" {
		fmt.Fprintln(stderr, "jobshift nomad-finish: runs only inside a Nomad task (NOMAD_JOB_ID, NOMAD_ALLOC_ID unset)")
		return 1
	}
	judge := len(args) == 1 && args[0] == nomad.FinishAfterMain
	if len(args) > 0 && !judge {
		fmt.Fprintf(stderr, "jobshift nomad-finish: unexpected arguments %q (only %s, or %s CODE)\n", args, nomad.FinishAfterMain, nomad.FinishExit)
		return 2
	}
	fail := 1
	if judge {
		fail = 0
	}
	d, err := nomad.NewInTask()
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-finish: %v\n", err)
		return fail
	}
	if judge {
		if err := d.WaitMainEnded(context.Background(), id, alloc); err != nil {
			fmt.Fprintf(stderr, "jobshift nomad-finish: %v\n", err)
			return fail
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.Finish(ctx, id, alloc, func(s string) { fmt.Fprintln(stdout, "jobshift-finish: "+s) }); err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-finish: %v\n", err)
		return fail
	}
	return 0
}

// runNomadFinishEnded is `nomad-finish -exit CODE`: the task's exit code
// is CODE whatever happens here (the user's command decided it), so a
// failure to judge is only reported, on the task's stderr, as is a
// verdict; and a stop (SIGTERM, SIGINT) while judging ends it at once with
// CODE: the job is being stopped, by this judge's verdict or another's.
func runNomadFinishEnded(id, alloc, codeArg string, stderr io.Writer) int {
	code, err := strconv.Atoi(codeArg)
	if err != nil {
		fmt.Fprintf(stderr, "jobshift nomad-finish: %s %q is not an exit code\n", nomad.FinishExit, codeArg)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		os.Exit(code)
	}()
	report := func(s string) { fmt.Fprintln(stderr, "jobshift-finish: "+s) }
	if id == "" || alloc == "" {
		report("runs only inside a Nomad task (NOMAD_JOB_ID, NOMAD_ALLOC_ID unset)")
		return code
	}
	d, err := nomad.NewInTask()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var verdict string
		// only a verdict is news in the task's own log
		if verdict, err = d.FinishEnded(ctx, id, alloc, code); verdict != "" {
			report(verdict)
		}
	}
	if err != nil {
		report("could not judge the job: " + err.Error())
	}
	return code
}
