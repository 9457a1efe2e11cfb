package completion

import (
	"sort"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// PolicyRestart is one in-place restart of a Volcano Job's task by its
// RestartPod or RestartTask policy that a target made inside the task (the
// Nomad restart loop), which its watcher learns after the fact: Task's run
// that ended At with exit code Code, restarted by Action (ActionRestartPod
// or ActionRestartTask), whose next run began Wait later.
type PolicyRestart struct {
	Task   TaskRef
	At     time.Time
	Code   int
	Action string
	Wait   time.Duration
}

// VolcanoRetryExhausted is the policy restart of the attempt after which
// the job's RetryCount reaches maxRetry, and the job Failed: state/running.go
// Execute increments status.retryCount once for each RestartPod or
// RestartTask action, whichever pod it comes from, and restarting.go
// restartingUpdateStatus fails the job once RetryCount ≥ maxRetry
// (@v1.16.0-alpha.1). seed is the RetryCount the attempt started with
// (VolcanoRetryCount of the earlier attempts); rs are the attempt's policy
// restarts in any order (each task's own, in order of time, are what a
// target reads back). The restarts of all tasks are taken in order of
// time, ties in the job's task order. false while RetryCount stays below
// maxRetry, or the job is no Volcano Job.
func VolcanoRetryExhausted(job *jobs.Job, seed int, rs []PolicyRestart) (PolicyRestart, bool) {
	if job == nil || job.Extras.Volcano == nil || KindOf(job) != jobs.CompletionVolcano || len(rs) == 0 {
		return PolicyRestart{}, false
	}
	k := job.Extras.Volcano.MaxRetry - seed // the k-th restart of this attempt fails the job
	if k > len(rs) {
		return PolicyRestart{}, false
	}
	k = max(k, 1)
	pos := map[TaskRef]int{}
	for i, r := range job.Roles {
		for j := range r.Instances {
			pos[TaskRef{Role: r.Name, Index: j}] = i<<20 + j
		}
	}
	sorted := append([]PolicyRestart(nil), rs...)
	sort.SliceStable(sorted, func(a, b int) bool {
		if !sorted[a].At.Equal(sorted[b].At) {
			return sorted[a].At.Before(sorted[b].At)
		}
		return pos[sorted[a].Task] < pos[sorted[b].Task]
	})
	return sorted[k-1], true
}

// VolcanoRestartTaskAt is when Volcano kills every pod of the task for
// RestartTask restart r (KillTarget with TargetTypeTask: killPods kills
// all of jobInfo.Pods[task], job_controller_actions.go @v1.16.0-alpha.1):
// at the end of the run that failed, or once the policy's timeout ran out
// (VolcanoRestartDelay, delayed.go). Every other pod of the task that was
// running since before then is killed and created again; one that had
// ended keeps its end. Zero for a RestartPod's (only the failed pod).
func VolcanoRestartTaskAt(job *jobs.Job, r PolicyRestart) time.Time {
	if r.Action != ActionRestartTask {
		return time.Time{}
	}
	return r.At.Add(VolcanoRestartDelay(job, r.Task.Role, r.Code))
}
