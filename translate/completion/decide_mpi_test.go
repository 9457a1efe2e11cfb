package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// mpiJob: Launcher×1 (OnFailure, v2beta1 default), Worker×2 (Never).
func mpiJob(clean string) *jobs.Job {
	return &jobs.Job{Name: "pi", Source: jobs.Source{Format: jobs.FormatMPIJob},
		Completion: jobs.Completion{Kind: jobs.CompletionMPI}, Retry: jobs.Retry{CleanPodPolicy: clean},
		Roles: []*jobs.Role{kfRole("launcher", 1, "OnFailure"), kfRole("worker", 2, "Never")}}
}

// Expected verdicts from mpi-operator updateMPIJobStatus: only the
// launcher Job's Complete/Failed condition ends the MPIJob.
func TestDecideMPIJob(t *testing.T) {
	cases := map[string]struct {
		job   *jobs.Job
		tasks []Task
		want  Verdict
	}{
		"launcher succeeds: job succeeds, workers stopped (Running)": {
			job:   mpiJob("Running"),
			tasks: []Task{tk("launcher", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("launcher", 0),
				Reason: "MPIJob pi successfully completed (the Launcher succeeded)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"cleanPodPolicy None (v2beta1 default): workers kept": {
			job:   mpiJob("None"),
			tasks: []Task{tk("launcher", 0, Succeeded, 0, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseSucceeded, Trigger: refp("launcher", 0),
				Reason: "MPIJob pi successfully completed (the Launcher succeeded)",
				Keep:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"a worker failing decides nothing": {
			job:   mpiJob("Running"),
			tasks: []Task{run("launcher", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)},
			want:  Verdict{Phase: PhaseRunning, Reason: "1 of 3 tasks ended"},
		},
		"every worker succeeding decides nothing": {
			job:   mpiJob("Running"),
			tasks: []Task{run("launcher", 0), tk("worker", 0, Succeeded, 0, 1), tk("worker", 1, Succeeded, 0, 2)},
			want:  Verdict{Phase: PhaseRunning, Reason: "2 of 3 tasks ended"},
		},
		"launcher fails (Never): job fails with its code": {
			job:   with(mpiJob("Running"), func(j *jobs.Job) { j.Roles[0].RestartPolicy = "Never" }),
			tasks: []Task{tk("launcher", 0, Failed, 3, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 3, Trigger: refp("launcher", 0),
				Reason: "MPIJob pi has failed because 1 Launcher replica(s) failed (task launcher-0 exited with 3)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
		"launcher ends after its backoffLimit: BackoffLimitExceeded": {
			job:   with(mpiJob("Running"), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(2) }),
			tasks: []Task{tk("launcher", 0, Failed, 1, 1), run("worker", 0), run("worker", 1)},
			want: Verdict{Phase: PhaseFailed, ExitCode: 1, Trigger: refp("launcher", 0),
				Reason: "BackoffLimitExceeded: MPIJob pi has failed because it has reached the specified backoff limit 2 (task launcher-0 ended with exit code 1 and was not restarted)",
				Stop:   []TaskRef{ref("worker", 0), ref("worker", 1)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Decide(tc.job, tc.tasks)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The backoffLimit bounds the launcher Job only; worker pods restart (v1alpha2
// StatefulSet, Always) without it.
func TestMPIRestart(t *testing.T) {
	j := mpiJob("Running")
	j.Retry.BackoffLimit = ip(2)
	j.Roles[1].RestartPolicy = "Always"
	cases := map[string]struct {
		role  string
		exit  int
		soFar int
		want  bool
	}{
		"launcher OnFailure, first failure": {"launcher", 1, 0, true},
		"launcher at backoffLimit":          {"launcher", 1, 1, false},
		"launcher succeeded":                {"launcher", 0, 0, false},
		"worker Always, past backoffLimit":  {"worker", 1, 5, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := TaskRestart(j, tc.role, tc.exit, tc.soFar); got != tc.want {
				t.Errorf("TaskRestart = %v, want %v (%s)", got, tc.want, TaskRestartDecision(j, tc.role, tc.exit, tc.soFar).Reason)
			}
		})
	}
}
