package slurm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

func TestParseScontrolJob(t *testing.T) {
	cases := map[string]struct {
		in   string
		want jobState
	}{
		"running": {"JobId=7 JobName=x UserId=root(0) JobState=RUNNING Reason=None Dependency=(null) Requeue=1 Restarts=0 BatchFlag=1 ExitCode=0:0\n",
			jobState{State: "RUNNING", Reason: "None", Name: "x", User: "root", Found: true}},
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

// TestFinalResultStopped: a job stopped from outside (scancel) ends like a
// stopped job on every target (completion.UserStopped): stopped, 143,
// unless the script had already given a verdict, which stands.
func TestFinalResultStopped(t *testing.T) {
	failed := &drivers.Result{Phase: completion.PhaseFailed, ExitCode: 3, Reason: "worker-1 failed"}
	cases := map[string]struct {
		js      jobState
		verdict *drivers.Result
		want    drivers.Result
	}{
		"cancelled while running": {jobState{State: "CANCELLED", Found: true}, nil,
			drivers.Result{Phase: completion.PhaseStopped, ExitCode: 143, Reason: "slurm: CANCELLED (scancel)"}},
		"cancelled after a failure verdict": {jobState{State: "CANCELLED", Found: true}, failed, *failed},
		"failed with its verdict":           {jobState{State: "FAILED", ExitCode: 3, Found: true}, failed, *failed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := finalResult(tc.js, attemptState{verdict: tc.verdict})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestManifestRoundTrip: what Submit records beside the script is what
// status/logs by id read back, byte for byte (role names with commas and
// quotes included: nothing is parsed out of the script).
func TestManifestRoundTrip(t *testing.T) {
	script := filepath.Join(t.TempDir(), "20260101-000000.000000-job.sbatch")
	meta := map[string]string{metaDir: "/home/a b", metaState: "/s/.jobshift/42", metaRoles: "ps,work'er",
		metaCounts: "1,3", metaScript: script, metaOutput: "/s/job-42.out"}
	if err := writeManifest(drivers.Handle{ID: "42", Meta: meta}); err != nil {
		t.Fatal(err)
	}
	got, err := readManifest(script)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(meta, got); diff != "" {
		t.Errorf("(-written +read):\n%s", diff)
	}
	if _, err := readManifest(script + ".other"); err == nil {
		t.Error("a script without manifest has one")
	}
}

// TestParseSqueueJSON reads `squeue --json --states=all -j 20` as Slurm
// 22.05.8 printed it on the test cluster (testdata/squeue-het-failed.json:
// job 20 a two-component het job whose batch script exited 5, among the
// other jobs 22.05 lists although -j asked for one).
func TestParseSqueueJSON(t *testing.T) {
	out, err := os.ReadFile("testdata/squeue-het-failed.json")
	if err != nil {
		t.Fatal(err)
	}
	j, found, filtered := parseSqueueJSON(out, "20")
	if !found || filtered {
		t.Fatalf("found %v filtered %v, want found in an unfiltered list", found, filtered)
	}
	if d := cmp.Diff(jobState{State: "FAILED", Reason: "NonZeroExitCode", ExitCode: 5, Name: "het.sh", User: "root", Found: true}, j.state()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if j.WorkDir != "/tmp/ops-sj" || j.Command != "/tmp/ops-sj/het.sh" {
		t.Errorf("workdir %q command %q", j.WorkDir, j.Command)
	}
	if _, found, _ := parseSqueueJSON(out, "21"); !found {
		t.Error("component id 21 (het offset 1) not found")
	}
	if _, found, _ := parseSqueueJSON(out, "99"); found {
		t.Error("job 99 found")
	}
	if _, found, filtered := parseSqueueJSON([]byte(`{"jobs":[{"job_id":4,"job_state":"RUNNING"}]}`), "4"); !found || !filtered {
		t.Error("a filtered answer is not recognised")
	}
}

func TestTaskList(t *testing.T) {
	tests := map[string]struct {
		in   string
		n    int
		want []int
	}{
		"one node":              {"0-5\n", 8, []int{0, 1, 2, 3, 4, 5}},
		"lines of two nodes":    {"0,2,4\n1,3,5-6\n", 8, []int{0, 2, 4, 1, 3, 5, 6}},
		"beyond the role":       {"6-9\n", 8, []int{6, 7}},
		"a line being written":  {"0-3\n4-", 8, []int{0, 1, 2, 3}},
		"not ranges":            {"x\n3-1\n-2\n", 8, nil},
		"empty":                 {"", 8, nil},
		"a huge range, clamped": {"0-999999999\n", 3, []int{0, 1, 2}},
	}
	for name, tc := range tests {
		if d := cmp.Diff(tc.want, taskList(tc.in, tc.n)); d != "" {
			t.Errorf("%s: taskList(%q) (-want +got):\n%s", name, tc.in, d)
		}
	}
}

// TestReadAttemptStarted: a task has started when its own stamp exists
// (a supervisor's, started.R.I) or when its role's started.R lists it
// (js_ends, from srun).
func TestReadAttemptStarted(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"started.0": "0-1\n", "started.1.2": "", "rc.1.2": "0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := readAttempt(dir, []string{"ps", "worker"}, []int{3, 3})
	want := map[jobs.TaskRef]bool{{Role: "ps", Index: 0}: true, {Role: "ps", Index: 1}: true, {Role: "worker", Index: 2}: true}
	if d := cmp.Diff(want, a.started); d != "" {
		t.Errorf("started (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[jobs.TaskRef]int{{Role: "worker", Index: 2}: 0}, a.rc); d != "" {
		t.Errorf("rc (-want +got):\n%s", d)
	}
}
