package slurm_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMPIAllreduce runs the MPI jobs of integration/testdata/mpi under
// Slurm with the ssh emulation (sshd per task on its port of the job's
// window, the key made in the allocation): every rank prints the same sum,
// the launcher decides (decide.sh's mpi rule), and neither an sshd nor a
// rank is left on the nodes, nor the key or the MPI directory (hostfile)
// in the state directory; the ranks of one task share memory, the ranks of
// different tasks do not.
func TestMPIAllreduce(t *testing.T) {
	needCluster(t)
	drivertest.NeedMPI(t)
	mpiAllreduce(t, nil)
}

// TestMPIAllreducePMIx: the same jobs, files unchanged, under the site's
// slurm { mpi = "pmix" }: the launcher's mpirun line runs as an srun
// --mpi=pmix step (sacct shows it completed, no fallback to ssh), every
// rank prints the same sum, nothing is left behind.
func TestMPIAllreducePMIx(t *testing.T) {
	needCluster(t)
	drivertest.NeedMPI(t)
	drivertest.NeedPMIx(t)
	mpiAllreduce(t, map[string]string{"mpi": "pmix"})
}

func mpiAllreduce(t *testing.T, opts map[string]string) {
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			plan := loadPlan(t, file, opts)
			// every command's environment, but the launcher's mpirun
			// line is read as it is under pmix
			var checkEnv func(*run)
			if opts["mpi"] != "pmix" {
				checkEnv = envDumped(t, plan)
			}
			r := submit(t, plan, 3*time.Minute)
			out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", tc.Launcher+".out"))
			errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", tc.Launcher+".err"))
			if r.final.Phase != completion.PhaseSucceeded {
				t.Fatalf("final %+v; launcher output:\n%s\n%s", r.final, out, errOut)
			}
			// the .out file is per role and task: <role>-<task id>.out
			drivertest.CheckAllreduce(t, string(out), tc.Ranks)
			// under pmix the ranks are the tasks of Slurm's own step, not
			// processes in the workers' namespaces
			if tc.SharedMemory != nil && opts["mpi"] != "pmix" {
				drivertest.CheckSharedMemory(t, string(out), tc.SharedMemory)
			}
			if checkEnv != nil {
				checkEnv(r)
			}
			if opts["mpi"] == "pmix" {
				drivertest.CheckPMIxStep(t, r.h.ID, string(out)+string(errOut))
			}
			var left []string
			deadline := time.Now().Add(30 * time.Second)
			for {
				left = append(drivertest.Leftovers(r.state), drivertest.Leftovers(marker)...)
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
			}
			if keys, _ := filepath.Glob(filepath.Join(r.state, "attempt-*", "ssh-key")); len(keys) > 0 {
				t.Errorf("job key left in the state directory: %v", keys)
			}
			// the MPI directory (hostfile, kubexec.sh) is the attempt's
			// own and goes with it; the launcher ran with that hostfile
			if dirs, _ := filepath.Glob(filepath.Join(r.state, "attempt-*", "mpi")); len(dirs) > 0 {
				t.Errorf("MPI directory left in the state directory: %v", dirs)
			}
			if strings.HasPrefix(tc.File, "v") {
				env, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "topology"))
				if !strings.Contains(string(env), "JS_MPI_DIR="+filepath.Join(r.state, "attempt-1", "mpi")+"\n") {
					t.Errorf("topology has no JS_MPI_DIR in the attempt's directory:\n%s", env)
				}
			}
		})
	}
}

// failingRankJob: rank 2 dies with code 3 (without MPI_Finalize, which
// would wait for the others) while they wait in a barrier for it.
const failingRankJob = `apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: failrank}
spec:
  slotsPerWorker: 2
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - name: launcher
            image: x
            env:
            - {name: OMPI_ALLOW_RUN_AS_ROOT, value: "1"}
            - {name: OMPI_ALLOW_RUN_AS_ROOT_CONFIRM, value: "1"}
            command: [mpirun, -np, "4", /usr/bin/python3, -c, 'import os; from mpi4py import MPI; marker = "MARKER"; c = MPI.COMM_WORLD; c.Get_rank() == 2 and os._exit(3); c.Barrier()']
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: worker, image: x, command: [/usr/sbin/sshd, -De]}]}}
`

// TestMPIFailingRankPMIx: under slurm { mpi = "pmix" } a rank that fails
// ends the others (srun --kill-on-bad-exit, as mpirun aborts the job), the
// launcher fails with the rank's code and decides the job, and no rank is
// left waiting in its barrier.
func TestMPIFailingRankPMIx(t *testing.T) {
	needCluster(t)
	drivertest.NeedMPI(t)
	drivertest.NeedPMIx(t)
	marker := fmt.Sprintf("jobshift_failrank_%d", os.Getpid())
	plan := loadPlan(t, writeJob(t, "failrank.yaml", strings.ReplaceAll(failingRankJob, "MARKER", marker)), map[string]string{"mpi": "pmix"})
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseFailed || r.final.ExitCode != 3 {
		t.Errorf("final %+v, want failed with the rank's exit code 3", r.final)
	}
	var left []string
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		left = drivertest.Leftovers(marker)
		if len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("ranks left behind:\n%s", strings.Join(left, "\n"))
	}
}
