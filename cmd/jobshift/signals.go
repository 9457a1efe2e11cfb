package main

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that stop a followed job: Ctrl-C, a kill, the
// terminal or ssh session going away (SIGHUP) and Ctrl-\ (SIGQUIT). Each
// stops the job in order (SIGTERM to every task, SIGKILL after -grace), then
// jobshift exits; a second one kills at once. SIGHUP is left alone when
// jobshift was started with it ignored (nohup): the user asked for the job
// to outlive the terminal.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// survivePipe keeps jobshift alive when its stdout or stderr is a closed
// pipe (`jobshift run job | head -1`): Go's default is to die of SIGPIPE on
// fd 1 and 2, which would orphan every task. With the signal caught the
// write fails with EPIPE instead, and output becomes best-effort
// (outSink). Catching, unlike ignoring, is reset by exec, so the tasks
// still get the default SIGPIPE behaviour their programs expect. A SIGPIPE
// ignored by jobshift's parent stays ignored, as it would for any program.
// The catch stays for the life of the process: output may still be
// flushed after the job ended.
func survivePipe() {
	if !signal.Ignored(syscall.SIGPIPE) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	}
}
