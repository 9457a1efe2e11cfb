package slurm_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestStoppedJobVerdict: a job stopped by the user (jobshift stop, i.e.
// scancel) while every task runs ends with the completion engine's
// stopped verdict (phase stopped, exit 143), as on local and Nomad.
func TestStoppedJobVerdict(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, "integration/testdata/stop-sleepers.json", nil)
	d := slurm.New(drivers.Config{Options: map[string]string{"watch_interval": "500ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	final := drivertest.StopOnceRunning(ctx, t, d, h, 3)
	if final.Phase != completion.PhaseStopped || final.ExitCode != completion.StoppedExitCode {
		t.Errorf("final %+v, want phase %s exit %d", final, completion.PhaseStopped, completion.StoppedExitCode)
	}
}

// stopMPIJob is an MPIJob whose launcher runs until stopped: the attempt
// has the job key and the MPI directory (hostfile) while it runs.
const stopMPIJob = `apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: stopmpi}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template: {spec: {containers: [{name: l, image: x, command: [sleep, "300"]}]}}
    Worker:
      replicas: 1
      template: {spec: {containers: [{name: w, image: x, command: [/usr/sbin/sshd, -De]}]}}
`

// TestStoppedMPIJobDropsSecrets: an MPIJob stopped with scancel (jobshift
// stop) while it runs leaves neither the attempt's job key (a secret)
// nor its MPI directory in the state directory: the batch script's
// SIGTERM trap removes them before Slurm kills it.
func TestStoppedMPIJobDropsSecrets(t *testing.T) {
	needCluster(t)
	drivertest.NeedMPI(t)
	plan := loadPlan(t, writeJob(t, "stopmpi.yaml", stopMPIJob), nil)
	d := slurm.New(drivers.Config{Options: map[string]string{"watch_interval": "500ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	adir := filepath.Join(h.Meta["state"], "attempt-1")
	// running: the key and the directory are there (what the stop must remove)
	for end := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, e1 := os.Stat(filepath.Join(adir, "ssh-key"))
		_, e2 := os.Stat(filepath.Join(adir, "mpi", "hostfile"))
		if e1 == nil && e2 == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the running attempt has no key or hostfile: %v %v", e1, e2)
		}
	}
	final := drivertest.StopOnceRunning(ctx, t, d, h, 2)
	if final.Phase != completion.PhaseStopped {
		t.Errorf("final %+v, want stopped", final)
	}
	for _, p := range []string{"ssh-key", "mpi"} {
		if _, err := os.Stat(filepath.Join(adir, p)); !os.IsNotExist(err) {
			t.Errorf("%s left in the state directory of the stopped attempt (%v)", p, err)
		}
	}
}
