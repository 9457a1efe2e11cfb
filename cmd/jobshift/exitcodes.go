package main

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/translate/completion"
)

// Exit codes, as the tools users know them (README "Exit codes"):
// sbatch/srun and a shell pass a failed job's code on; 128+N is a death by
// signal N (130 Ctrl-C, 143 SIGTERM); 2 is a usage error (flag package,
// kubectl, nomad) and here also a job the cluster cannot place; 1 is an
// invalid job or a command that failed.
const (
	exitOK      = 0
	exitInvalid = 1 // an invalid job or site config; a failed command
	exitUsage   = 2 // bad flags or arguments; a job the target cannot place
)

// jobExitCode is run's exit code for a job that ended: 0 when it
// succeeded; the deciding task's exit code when it failed (1 when that is
// not a usable process exit code: 0, negative PAI codes, above 255); 2
// when it failed because the cluster could not place it.
func jobExitCode(res *drivers.Result) int {
	switch {
	case res == nil:
		return exitInvalid
	case res.Phase == completion.PhaseSucceeded:
		return exitOK
	case strings.HasPrefix(res.Reason, nomad.GangTimeoutReason):
		return exitUsage
	case res.ExitCode <= 0 || res.ExitCode > 255:
		return 1
	}
	return res.ExitCode
}

// signalExitCode is a shell's code for a death by sig: 128+N.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// submitExitCode is the exit code of a refused submit: 2 when the cluster
// cannot place the job (or one of the same ID runs), else 1.
func submitExitCode(err error) int {
	if errors.Is(err, nomad.ErrPlacement) || errors.Is(err, nomad.ErrJobExists) || errors.Is(err, slurm.ErrPlacement) {
		return exitUsage
	}
	return exitInvalid
}
