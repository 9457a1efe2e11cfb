package local

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Every task process group is led by a small supervisor: this binary
// (whatever embeds the driver: jobshift, a plugin, a test) run again through
// /proc/self/exe with argv[0] = supervisorName, which init below turns into
// superviseMain before anything else runs. The supervisor starts the task in
// its own group and waits for it; its exit code is the task's (the status,
// or 128+n for a death by signal n). It also holds the read end of a pipe
// whose only write end lives in jobshift: when jobshift ends in any way,
// SIGKILL included, the kernel closes that end, the supervisor reads EOF and
// stops its group (SIGTERM, SIGKILL after the grace period), so no task
// outlives the jobshift that started it. A pipe, unlike PR_SET_PDEATHSIG,
// does not depend on which thread forked, and reaches every process of the
// group, not just the first.
const supervisorName = "jobshift-task-supervisor"

// lifelineFD is the supervisor's copy of the lifeline pipe (ExtraFiles[0]).
const lifelineFD = 3

func init() {
	if filepath.Base(os.Args[0]) == supervisorName {
		os.Exit(superviseMain(os.Args[1:]))
	}
}

var (
	lifelineOnce sync.Once
	lifelineR    *os.File // handed to every supervisor
	lifelineW    *os.File // never closed: it goes only when jobshift goes
	lifelineErr  error
)

// lifeline returns the read end every supervisor gets. os.Pipe sets
// close-on-exec on both ends, so no task, supervisor or other child ever
// holds the write end.
func lifeline() (*os.File, error) {
	lifelineOnce.Do(func() {
		lifelineR, lifelineW, lifelineErr = os.Pipe()
	})
	return lifelineR, lifelineErr
}

// supervisedCmd is the command that runs argv (spec's, with this start's
// program file) under a supervisor, which leads a new process group (the
// task's).
func supervisedCmd(spec *taskSpec, argv []string) (*exec.Cmd, error) {
	r, err := lifeline()
	if err != nil {
		return nil, fmt.Errorf("lifeline pipe: %w", err)
	}
	args := append([]string{supervisorName, spec.name(), spec.Grace.String(), spec.Container, "--"}, argv...)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: args, Env: spec.Env, Dir: spec.Dir}
	cmd.ExtraFiles = []*os.File{r}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// superviseMain is the supervisor: argv is name, grace, container ("" when
// none), "--", then the task's argv. Its environment, directory and standard
// streams are the task's.
func superviseMain(argv []string) int {
	if len(argv) < 5 || argv[3] != "--" {
		fmt.Fprintf(os.Stderr, "%s: internal use by jobshift's local driver only\n", supervisorName)
		return 2
	}
	name, container, task := argv[0], argv[2], argv[4:]
	grace, err := time.ParseDuration(argv[1])
	if err != nil {
		grace = DefaultGrace
	}
	syscall.CloseOnExec(lifelineFD)
	catchSignals()
	cmd := &exec.Cmd{Path: task[0], Args: task, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "jobshift: cannot start task %s: %v\n", name, err)
		return exitStartFailed
	}
	exited := make(chan int, 1)
	go func() {
		werr := cmd.Wait()
		exited <- exitCode(cmd.ProcessState, werr)
	}()
	orphaned := make(chan struct{})
	go watchLifeline(orphaned)
	select {
	case code := <-exited:
		return code
	case <-orphaned:
		return stopOrphan(container, grace, exited)
	}
}

// catchSignals keeps the supervisor alive through every signal sent to its
// group (a stop's SIGTERM, a user's `kill -USR1 0`) so that it can report
// how the task ended; only SIGKILL ends it. Caught signals go back to their
// default in the task (exec resets them); signals ignored when the
// supervisor started are left ignored, so the task inherits them as it
// would have from jobshift (nohup).
func catchSignals() {
	c := make(chan os.Signal, 64)
	for s := syscall.Signal(1); s < 32; s++ {
		if s == syscall.SIGKILL || s == syscall.SIGSTOP || signal.Ignored(s) {
			continue
		}
		signal.Notify(c, s)
	}
	go func() {
		for range c {
		}
	}()
}

// watchLifeline closes orphaned once jobshift is gone (EOF, or an error:
// either way nobody will read this task's output or stop it any more).
func watchLifeline(orphaned chan<- struct{}) {
	f := os.NewFile(lifelineFD, "lifeline")
	if f == nil {
		return
	}
	_, _ = io.Copy(io.Discard, f)
	close(orphaned)
}

// stopOrphan stops the group as jobshift would have: SIGTERM, then SIGKILL
// after grace or as soon as the task's main process has ended (a container
// ends with its main process). The SIGKILL to the group ends the supervisor
// too.
func stopOrphan(container string, grace time.Duration, exited <-chan int) int {
	pgid := syscall.Getpgrp()
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if container != "" {
		dockerKill(container)
	}
	t := time.NewTimer(grace)
	code := 137
	select {
	case code = <-exited:
	case <-t.C:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return code
}
