package completion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func failedWith(code int) Verdict { return Verdict{Phase: PhaseFailed, ExitCode: code} }

func TestJobRetry(t *testing.T) {
	retries := func(n int) *jobs.Job {
		return with(paiV2(paiRole("worker", 1, ip(1), ip(1))), func(j *jobs.Job) { j.Retry.JobRetryCount = n })
	}
	v1 := func(n int) *jobs.Job {
		return with(paiV1(paiRole("worker", 1, ip(1), nil)), func(j *jobs.Job) { j.Retry.JobRetryCount = n })
	}
	cases := map[string]struct {
		job   *jobs.Job
		v     Verdict
		sofar int
		want  RetryDecision
	}{
		// spec/pai.md §4.2: exit 1 is reported 255 = Unknown, retried while
		// retriesSoFar < jobRetryCount.
		"unknown, count 0: no retry": {retries(0), failedWith(1), 0,
			RetryDecision{Reason: "exit code 1 (reported 255): jobRetryCount 0 exhausted"}},
		"unknown, 0 of 2 used: retry, counted": {retries(2), failedWith(1), 0,
			RetryDecision{Retry: true, Counted: true, Reason: "exit code 1 (reported 255): retry 1 of jobRetryCount 2"}},
		"unknown, 2 of 2 used: no retry": {retries(2), failedWith(1), 2,
			RetryDecision{Reason: "exit code 1 (reported 255): jobRetryCount 2 exhausted"}},
		// Issue 13: a worker killed by SIGKILL fails a job with jobRetryCount 0
		// and is retried, counted, within it (OpenPAI's tables said transient,
		// retried forever: microsoft/pai#5615).
		"137 with count 0: failed": {retries(0), failedWith(137), 0,
			RetryDecision{Reason: "exit code 137 (reported 137): jobRetryCount 0 exhausted"}},
		"137 with count 1: retried, counted": {retries(1), failedWith(137), 0,
			RetryDecision{Retry: true, Counted: true, Reason: "exit code 137 (reported 137): retry 1 of jobRetryCount 1"}},
		"143 within count": {retries(1), failedWith(143), 1,
			RetryDecision{Reason: "exit code 143 (reported 143): jobRetryCount 1 exhausted"}},
		// §4.2 Transient (here -1001 NodeLost, a lost host): always retried, not counted.
		"-1001 transient with count 0: retried, not counted": {retries(0), failedWith(-1001), 0,
			RetryDecision{Retry: true, Reason: "exit code -1001 (reported -1001) is transient: always retried, not counted"}},
		// §4.2 Permanent 132 (SIGILL): never, whatever the count.
		"132 permanent": {retries(5), failedWith(132), 0,
			RetryDecision{Reason: "exit code 132 (reported 132) is permanent: never retried"}},
		// §4.2 Unknown 139 (SIGSEGV) is counted.
		"139 unknown": {retries(1), failedWith(139), 0,
			RetryDecision{Retry: true, Counted: true, Reason: "exit code 139 (reported 139): retry 1 of jobRetryCount 1"}},
		// FC NormalRetryPolicy: -1 retries any failure, but fancy still
		// refuses permanent ones (PAI sets fancy for every count but -2).
		"-1: unknown retried without end": {v1(-1), failedWith(1), 1000,
			RetryDecision{Retry: true, Counted: true, Reason: "jobRetryCount -1: every failure is retried"}},
		"-1: permanent still not retried": {v1(-1), failedWith(196), 0,
			RetryDecision{Reason: "exit code 196 (reported 196) is permanent: never retried"}},
		// -2: non-fancy, always, even after success (§1 retryCount).
		"-2: success retried": {v1(-2), Verdict{Phase: PhaseSucceeded}, 50,
			RetryDecision{Retry: true, Counted: true, Reason: "jobRetryCount -2: always retried, even after success"}},
		"-2: failure retried": {v1(-2), failedWith(132), 0,
			RetryDecision{Retry: true, Counted: true, Reason: "jobRetryCount -2: always retried, even after success"}},
		"success not retried": {retries(3), Verdict{Phase: PhaseSucceeded}, 0,
			RetryDecision{Reason: "the job succeeded"}},
		"stopped never retried": {retries(3), Verdict{Phase: PhaseStopped, ExitCode: 143}, 0,
			RetryDecision{Reason: "the job was stopped"}},
		"running: nothing to retry": {retries(3), Verdict{Phase: PhaseRunning}, 0,
			RetryDecision{Reason: "the attempt has not ended"}},
		// YARN table for v1 JSON: 193 (docker run failure) is transient;
		// 134 is unknown; exit 1 is reported 255 (unknown).
		"v1 JSON: 193 transient": {v1(0), failedWith(193), 0,
			RetryDecision{Retry: true, Reason: "exit code 193 (reported 193) is transient: always retried, not counted"}},
		"v1 JSON: 1 unknown": {v1(1), failedWith(1), 0,
			RetryDecision{Retry: true, Counted: true, Reason: "exit code 1 (reported 255): retry 1 of jobRetryCount 1"}},
		"v1 JSON: 131 is unknown in the YARN table": {v1(0), failedWith(131), 0,
			RetryDecision{Reason: "exit code 131 (reported 131): jobRetryCount 0 exhausted"}},
		// spec/kubeflow.md: no whole-job retry exists.
		"Kubeflow: never": {with(tfNoChief(), func(j *jobs.Job) { j.Retry.BackoffLimit = ip(5) }), failedWith(1), 0,
			RetryDecision{Reason: "Kubeflow jobs are not retried as a whole (restartPolicy restarts tasks in place, bounded by backoffLimit)"}},
		"nil job": {nil, failedWith(1), 0, RetryDecision{Reason: "no job"}},
		"other kinds: never": {&jobs.Job{Source: jobs.Source{Format: jobs.Format("other")}}, failedWith(1), 0,
			RetryDecision{Reason: "this job kind has no retry policy"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, JobRetry(c.job, c.v, c.sofar)); diff != "" {
				t.Errorf("JobRetry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskRestart(t *testing.T) {
	noGang := func(n int) *jobs.Job {
		r := paiRole("worker", 2, ip(1), ip(2))
		r.TaskRetryCount = n
		return with(paiV2(r), func(j *jobs.Job) { j.Retry.GangAllocation = false })
	}
	gang := with(noGang(3), func(j *jobs.Job) { j.Retry.GangAllocation = true })
	tf := func(policy string, backoff *int) *jobs.Job {
		return with(tfJob(kfRole("worker", 2, policy)), func(j *jobs.Job) { j.Retry.BackoffLimit = backoff })
	}
	cases := map[string]struct {
		job   *jobs.Job
		role  string
		exit  int
		sofar int
		want  RetryDecision
	}{
		// spec/pai.md §4.2 task level: only without gang allocation
		// (issues #5004, #3781) ...
		"PAI gang: never": {gang, "worker", 1, 0,
			RetryDecision{Reason: "gang allocation: tasks are never retried alone (taskRetryCount needs extras.gangAllocation false)"}},
		// ... then {fancy: true, maxRetryCount: taskRetryCount}.
		"PAI no gang: unknown within count": {noGang(2), "worker", 1, 1,
			RetryDecision{Retry: true, Counted: true, Reason: "exit code 1 (reported 255): retry 2 of taskRetryCount 2"}},
		"PAI no gang: unknown count exhausted": {noGang(2), "worker", 1, 2,
			RetryDecision{Reason: "exit code 1 (reported 255): taskRetryCount 2 exhausted"}},
		"PAI no gang: transient always": {noGang(0), "worker", 131, 0,
			RetryDecision{Retry: true, Reason: "exit code 131 (reported 131) is transient: always retried, not counted"}},
		"PAI no gang: SIGKILL counted (issue 13)": {noGang(0), "worker", 137, 0,
			RetryDecision{Reason: "exit code 137 (reported 137): taskRetryCount 0 exhausted"}},
		"PAI no gang: permanent never": {noGang(5), "worker", 141, 0,
			RetryDecision{Reason: "exit code 141 (reported 141) is permanent: never retried"}},
		"PAI no gang: success is not restarted": {noGang(5), "worker", 0, 0,
			RetryDecision{Reason: "the task succeeded"}},
		// spec/kubeflow.md §1.4 restartPolicy table.
		"Never": {tf(RestartNever, nil), "worker", 1, 0,
			RetryDecision{Reason: "restartPolicy Never does not restart a task that exited with 1"}},
		"unset TFJob policy is Never": {tf("", nil), "worker", 1, 0,
			RetryDecision{Reason: "restartPolicy Never does not restart a task that exited with 1"}},
		"OnFailure, non-zero": {tf(RestartOnFailure, nil), "worker", 1, 40,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy OnFailure restarts a task that exited with 1"}},
		"OnFailure, zero": {tf(RestartOnFailure, nil), "worker", 0, 0,
			RetryDecision{Reason: "restartPolicy OnFailure does not restart a task that exited with 0"}},
		"Always, zero": {tf(RestartAlways, nil), "worker", 0, 0,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy Always restarts a task that exited with 0"}},
		// ExitCode: ≥128 retryable, 1–127 permanent (v1.5+ IsRetryableExitCode).
		"ExitCode 137": {tf(RestartExitCode, nil), "worker", 137, 0,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy ExitCode restarts a task that exited with 137"}},
		"ExitCode 128": {tf(RestartExitCode, nil), "worker", 128, 0,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy ExitCode restarts a task that exited with 128"}},
		"ExitCode 127": {tf(RestartExitCode, nil), "worker", 127, 0,
			RetryDecision{Reason: "restartPolicy ExitCode: exit code 127 is permanent (1-127)"}},
		"ExitCode 0": {tf(RestartExitCode, nil), "worker", 0, 0,
			RetryDecision{Reason: "restartPolicy ExitCode does not restart a task that exited with 0"}},
		// §1.4 backoffLimit: the job fails as soon as the restart count
		// reaches the limit, so restart number k happens only if k < limit.
		"backoffLimit 3, 1 restart so far: restart 2": {tf(RestartOnFailure, ip(3)), "worker", 1, 1,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy OnFailure restarts a task that exited with 1"}},
		"backoffLimit 3, 2 restarts so far: refused": {tf(RestartOnFailure, ip(3)), "worker", 1, 2,
			RetryDecision{Reason: "backoffLimit 3 reached (2 restarts so far)"}},
		"backoffLimit 1: no restart": {tf(RestartOnFailure, ip(1)), "worker", 1, 0,
			RetryDecision{Reason: "backoffLimit 1 reached (0 restarts so far)"}},
		"backoffLimit 0: no restart": {tf(RestartOnFailure, ip(0)), "worker", 1, 0,
			RetryDecision{Reason: "backoffLimit 0 reached (0 restarts so far)"}},
		"ExitCode bounded by backoffLimit": {tf(RestartExitCode, ip(2)), "worker", 143, 1,
			RetryDecision{Reason: "backoffLimit 2 reached (1 restarts so far)"}},
		// §4.1: PyTorchJob defaults to OnFailure.
		"unset PyTorchJob policy is OnFailure": {ptJob(kfRole("worker", 1, "")), "worker", 1, 0,
			RetryDecision{Retry: true, Counted: true, Reason: "restartPolicy OnFailure restarts a task that exited with 1"}},
		"unknown role": {tf(RestartAlways, nil), "ghost", 1, 0, RetryDecision{Reason: `no role "ghost"`}},
		"nil job":      {nil, "worker", 1, 0, RetryDecision{Reason: "no job"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := TaskRestartDecision(c.job, c.role, c.exit, c.sofar)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("TaskRestartDecision (-want +got):\n%s", diff)
			}
			if b := TaskRestart(c.job, c.role, c.exit, c.sofar); b != c.want.Retry {
				t.Errorf("TaskRestart = %v, want %v", b, c.want.Retry)
			}
		})
	}
}

func TestRestartsSoFar(t *testing.T) {
	tasks := []Task{{TaskRef: ref("worker", 0), Restarts: 2}, {TaskRef: ref("worker", 1), Restarts: 1}, {TaskRef: ref("ps", 0), Restarts: 4}}
	cases := map[string]struct {
		job  *jobs.Job
		want int
	}{
		"PAI: the task's own": {psWorkerV2(), 1},
		"Kubeflow: the attempt's sum (backoffLimit is job-wide, §1.4)": {tfNoChief(), 7},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RestartsSoFar(c.job, ref("worker", 1), tasks); got != c.want {
				t.Errorf("RestartsSoFar = %d, want %d", got, c.want)
			}
		})
	}
}

func TestDeadline(t *testing.T) {
	cases := map[string]struct {
		secs *int64
		want time.Duration
		ok   bool
	}{
		"unset":    {nil, 0, false},
		"set":      {i64(600), 10 * time.Minute, true},
		"zero":     {i64(0), 0, true},
		"negative": {i64(-5), 0, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			j := with(tfNoChief(), func(j *jobs.Job) { j.Retry.ActiveDeadlineSeconds = c.secs })
			d, ok := Deadline(j)
			if d != c.want || ok != c.ok {
				t.Errorf("Deadline = %v, %v; want %v, %v", d, ok, c.want, c.ok)
			}
		})
	}
}

func TestDeadlineVerdict(t *testing.T) {
	// §1.5: past the deadline every pod is deleted, cleanPodPolicy None
	// notwithstanding, and the job is Failed.
	j := with(tfNoChief(), func(j *jobs.Job) {
		j.Retry.ActiveDeadlineSeconds = i64(60)
		j.Retry.CleanPodPolicy = "None"
	})
	got := DeadlineVerdict(j, []Task{run("ps", 0), tk("worker", 0, Failed, 1, 0), run("worker", 1)})
	want := Verdict{Phase: PhaseFailed, ExitCode: 124,
		Reason: "DeadlineExceeded: job mnist was active longer than specified deadline (activeDeadlineSeconds 60)",
		Stop:   []TaskRef{ref("ps", 0), ref("worker", 1)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DeadlineVerdict (-want +got):\n%s", diff)
	}
	if r := JobRetry(j, got, 0); r.Retry {
		t.Errorf("JobRetry after deadline = %+v, want no retry", r)
	}
}

func TestDecidingRoles(t *testing.T) {
	cases := map[string]struct {
		job  *jobs.Job
		want []string
	}{
		"PAI v2 defaults: both roles": {psWorkerV2(), []string{"ps", "worker"}},
		// marketplace-style: ps disabled both ways never ends the job early.
		"PAI: role with both counters disabled is left out": {
			paiV2(paiRole("ps", 1, ip(-1), ip(-1)), paiRole("worker", 2, ip(1), ip(2))), []string{"worker"}},
		"PAI v1 nulls":                       {paiV1(paiRole("ps", 1, nil, nil), paiRole("worker", 2, nil, ip(2))), []string{"worker"}},
		"TF: every role (any failure fails)": {tfFull(), []string{"chief", "ps", "worker", "evaluator"}},
		"TF dynamic worker with chief: workers out": {
			with(tfFull(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }), []string{"chief", "ps", "evaluator"}},
		"TF dynamic worker without chief: workers decide success": {
			with(tfNoChief(), func(j *jobs.Job) { j.Completion.EnableDynamicWorker = true }), []string{"ps", "worker"}},
		"PyTorch: every role":     {ptJob(kfRole("master", 1, ""), kfRole("worker", 2, "")), []string{"master", "worker"}},
		"zero instances left out": {tfJob(kfRole("chief", 0, ""), kfRole("worker", 1, "")), []string{"worker"}},
		"nil job":                 {nil, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, DecidingRoles(c.job)); diff != "" {
				t.Errorf("DecidingRoles (-want +got):\n%s", diff)
			}
		})
	}
}
