package slurm

import (
	"os/exec"
	"testing"
)

// A Slurm command's failure is reported in its own words (squeue says why
// it cannot reach slurmctld; "exit status 1" says nothing).
func TestCommandErrorKeepsStderr(t *testing.T) {
	_, err := exec.Command("sh", "-c", "echo 'squeue: error: Unable to contact slurm controller (connect failure)' >&2; exit 1").Output()
	if got, want := commandError(err), "squeue: error: Unable to contact slurm controller (connect failure)"; got != want {
		t.Errorf("commandError = %q, want %q", got, want)
	}
	_, err = exec.Command("sh", "-c", "exit 2").Output()
	if got := commandError(err); got != "exit status 2" {
		t.Errorf("silent failure: %q", got)
	}
}
