package slurm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseScontrolJob(t *testing.T) {
	cases := map[string]struct {
		in   string
		want jobState
	}{
		"running": {"JobId=7 JobName=x UserId=root(0) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:0\n",
			jobState{State: "RUNNING", Reason: "None", Found: true}},
		"failed requeued": {"JobId=9 JobState=FAILED Reason=NonZeroExitCode Restarts=2 ExitCode=3:0\n",
			jobState{State: "FAILED", Reason: "NonZeroExitCode", ExitCode: 3, Restarts: 2, Found: true}},
		"het: leader line": {"JobId=5 HetJobId=5 HetJobOffset=0 JobState=COMPLETED Reason=None Restarts=0 ExitCode=0:0\nJobId=6 HetJobId=5 HetJobOffset=1 JobState=RUNNING Reason=None\n",
			jobState{State: "COMPLETED", Reason: "None", Found: true}},
		"unknown": {"slurm_load_jobs error: Invalid job id specified\n", jobState{}},
	}
	for name, tc := range cases {
		if d := cmp.Diff(tc.want, parseScontrolJob(tc.in)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestParseSacct(t *testing.T) {
	cases := map[string]struct {
		in   string
		want jobState
	}{
		"completed": {"COMPLETED|0:0\n", jobState{State: "COMPLETED", Found: true}},
		"cancelled": {"CANCELLED by 0|0:15\n", jobState{State: "CANCELLED", Found: true}},
		"failed":    {"FAILED|3:0\n", jobState{State: "FAILED", ExitCode: 3, Found: true}},
		"empty":     {"", jobState{}},
	}
	for name, tc := range cases {
		if d := cmp.Diff(tc.want, parseSacct(tc.in)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}
