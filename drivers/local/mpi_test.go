package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMPIAllreduce runs the MPI jobs of integration/testdata/mpi as local
// processes with the ssh emulation: an MPIJob v2beta1 (ssh, hostfile with
// service-domain names, workers whose own command is an sshd), v1alpha2
// (kubexec.sh as the rsh agent, workers without a command) and a PAI v2 job
// whose mpirun names `-H master-0:2,worker-0:2`. Every rank must print the
// same sum, the job must succeed with the launcher, and no sshd or rank
// may be left once it ended. With each worker its own host name, OpenMPI
// puts the two ranks of one worker (slotsPerWorker: 2) in one
// shared-memory group and the other worker's ranks outside it, so ranks of
// different tasks talk over TCP (the v2beta1 job's ranks print their
// group; without the namespace that job segfaults in vader).
func TestMPIAllreduce(t *testing.T) {
	drivertest.NeedMPI(t)
	for _, tc := range drivertest.MPIJobs {
		t.Run(tc.Name, func(t *testing.T) {
			file, marker := drivertest.MPIJobFile(t, tc.File)
			plan := loadPlan(t, file)
			work := t.TempDir()
			res, runDir, evs := runPlan(t, plan, Options{Dir: work, Grace: 2 * time.Second})
			// The launcher restarts in place on failure (OnFailure: an
			// mpirun that lost a race with a worker under load): its
			// output is that of its latest start, as jobshift logs shows.
			out, errOut, starts := latestStart(t, runDir, tc.Launcher)
			if starts > 1 {
				t.Logf("the launcher started %d times", starts)
			}
			if res.Phase != completion.PhaseSucceeded {
				for _, e := range evs {
					t.Logf("event: %+v", e)
				}
				t.Fatalf("result %+v; launcher stderr:\n%s", res, errOut)
			}
			drivertest.CheckAllreduce(t, string(out), tc.Ranks)
			if tc.SharedMemory != nil {
				drivertest.CheckSharedMemory(t, string(out), tc.SharedMemory)
			}
			// the ranks and the sshd are gone (the ranks run under the
			// workers' sshd, in sessions of their own)
			var left []string
			deadline := time.Now().Add(5 * time.Second)
			for {
				left = append(drivertest.Leftovers(runDir), drivertest.Leftovers(marker)...)
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("left behind:\n%v", left)
			}
			if keys, _ := filepath.Glob(filepath.Join(runDir, "ssh", "key-*")); len(keys) > 0 {
				t.Errorf("job key left in the run directory: %v", keys)
			}
		})
	}
}

// TestMPIRefusedUnderDocker: the emulation runs processes only; -docker
// refuses an ssh job, located at each ssh role (its replica type key).
func TestMPIRefusedUnderDocker(t *testing.T) {
	plan := loadPlan(t, filepath.Join(drivertest.MPITestdata(t), "v2beta1.yaml"))
	d, err := New(Options{Docker: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Render(context.Background(), plan)
	if !errors.Is(err, ErrSSHInDocker) {
		t.Fatalf("err = %v, want ErrSSHInDocker", err)
	}
	for _, at := range []string{"v2beta1.yaml:11:5:", "v2beta1.yaml:22:5:"} {
		if !strings.Contains(err.Error(), at) {
			t.Errorf("error does not point at %s: %v", at, err)
		}
	}
}

// latestStart is the output of a task's latest start in the run directory
// (startDirs' order, the start jobshift logs shows) and how many starts it
// had. A test that read attempt-1 read the first start, which after an
// in-place restart is not the one that succeeded.
func latestStart(t *testing.T, runDir, task string) (stdout, stderr []byte, starts int) {
	t.Helper()
	dirs, err := startDirs(filepath.Join(runDir, task))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("task %s has no start in %s: %v", task, runDir, err)
	}
	last := dirs[len(dirs)-1]
	stdout, _ = os.ReadFile(filepath.Join(last, "stdout"))
	stderr, _ = os.ReadFile(filepath.Join(last, "stderr"))
	return stdout, stderr, len(dirs)
}

// TestLatestStartAfterRestart: a task that fails once and succeeds when
// restarted in place (restartPolicy OnFailure, as an MPIJob v1alpha2
// launcher) keeps each start's output apart; the succeeded start's output
// is the latest, and the first start's stdout is empty, which is what
// TestMPIAllreduce/v1alpha2 once read ("0 ranks printed" of a job that
// succeeded).
func TestLatestStartAfterRestart(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "failed-once")
	job := onceJob(t, dir, "once", "if [ -e "+mark+" ]; then echo succeeded; else touch "+mark+"; echo lost a race >&2; exit 3; fi")
	res, runDir, _ := runPlan(t, loadPlan(t, job), Options{Dir: dir})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	out, _, starts := latestStart(t, runDir, "worker-0")
	if starts != 2 || string(out) != "succeeded\n" {
		t.Errorf("latest of %d starts printed %q, want 2 starts and \"succeeded\\n\"", starts, out)
	}
	if first, _ := os.ReadFile(filepath.Join(runDir, "worker-0", "attempt-1", "stdout")); len(first) != 0 {
		t.Errorf("first start's stdout %q, want empty (it failed)", first)
	}
}

// onceJob writes a one-worker TFJob named name whose worker runs
// `sh -c command` under restartPolicy OnFailure: the tests of in-place
// restarts give it a command that fails its first start.
func onceJob(t *testing.T, dir, name, command string) string {
	t.Helper()
	job := filepath.Join(dir, name+".yaml")
	src := `apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: ` + name + `
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: tensorflow
              image: python:3.11
              command: [sh, -c, "` + command + `"]
`
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return job
}
