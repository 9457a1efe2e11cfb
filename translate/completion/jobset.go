package completion

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// jobsetRules: a Kubeflow Trainer v2 TrainJob runs as a JobSet
// (sigs.k8s.io/jobset pkg/controllers/jobset_controller.go, the version
// kubeflow/trainer v2.3.0 vendors; Trainer mirrors the JobSet's
// Completed/Failed conditions on the TrainJob, pkg/runtime/framework/
// plugins/jobset/jobset.go TerminalCondition). One role is one replicated
// job; a role is complete when every task succeeded (its Jobs have
// completions = parallelism).
//
//   - success: the successPolicy holds — operator All (default): every
//     target role complete; Any: one target role complete; targets are
//     targetReplicatedJobs, or every role (the MPI runtimes name the
//     launcher, manifests/base/runtimes/deepspeed_distributed.yaml @v2.3.0).
//   - failure: the first task that failed for good (its role's Job ran out
//     of backoffLimit, so the Job failed, so the JobSet fails).
type jobsetRules struct{}

func (jobsetRules) onEnd(a *attempt, t Task) (decided, bool) {
	switch t.State {
	case Failed:
		return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
			Reason: fmt.Sprintf("TrainJob %s failed: replicated job %s failed (task %s-%d exited with %d after its backoffLimit)", a.job.Name, t.Role, t.Role, t.Index, t.ExitCode)}}, true
	case Succeeded:
		if ok, which := jobsetSucceeded(a); ok {
			return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
				Reason: fmt.Sprintf("TrainJob %s completed: the success policy holds (%s)", a.job.Name, which)}}, true
		}
	}
	return decided{}, false
}

func (jobsetRules) onAllEnded(a *attempt, last Task) decided {
	if d, ok := a.stopped(); ok {
		return d
	}
	return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: noRuleExitCode, Trigger: refOf(last),
		Reason: "every task ended and the success policy does not hold (JobSet would stay active)"}}
}

// jobsetSucceeded applies the success policy to the replayed tasks.
func jobsetSucceeded(a *attempt) (bool, string) {
	targets := a.job.Completion.SuccessRoles
	if len(targets) == 0 {
		for _, r := range a.job.Roles {
			targets = append(targets, r.Name)
		}
	}
	done := 0
	for _, name := range targets {
		r := a.roles[name]
		if r == nil || a.count(name, Succeeded) >= r.Instances {
			done++
		}
	}
	op, what := "All", strings.Join(targets, ", ")
	if a.job.Completion.SuccessAny {
		op = "Any"
		return done > 0, op + " of " + what
	}
	return done == len(targets), op + " of " + what
}

// jobsetRestart: a replicated Job replaces a failed pod (restartPolicy
// Never) or restarts its container (OnFailure) until the Job's failed-pod
// count reaches backoffLimit (batch/v1 JobSpec, default 6); restartsSoFar
// is the role's own count (RestartsSoFar).
func jobsetRestart(r *jobs.Role, exitCode, restartsSoFar int) RetryDecision {
	if exitCode == 0 {
		return RetryDecision{Reason: "the task succeeded"}
	}
	limit := 6
	if r.BackoffLimit != nil {
		limit = *r.BackoffLimit
	}
	if restartsSoFar >= limit {
		return RetryDecision{Reason: fmt.Sprintf("backoffLimit %d of replicated job %s reached (%d retries so far)", limit, r.Name, restartsSoFar)}
	}
	return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("replicated job %s retries a failed pod (%d of backoffLimit %d)", r.Name, restartsSoFar+1, limit)}
}

// jobsetRetry: failurePolicy.maxRestarts recreates the whole JobSet after a
// failure, up to maxRestarts times (jobset_controller.go
// executeRestartPolicy); the reader put it in Retry.JobRetryCount.
func jobsetRetry(job *jobs.Job, v Verdict, retriesSoFar int) RetryDecision {
	if v.Phase != PhaseFailed {
		return RetryDecision{Reason: "the job succeeded"}
	}
	if v.Reason == "DeadlineExceeded" || strings.HasPrefix(v.Reason, "DeadlineExceeded") {
		return RetryDecision{Reason: "the deadline passed"}
	}
	if retriesSoFar >= job.Retry.JobRetryCount {
		return RetryDecision{Reason: fmt.Sprintf("failurePolicy.maxRestarts %d reached", job.Retry.JobRetryCount)}
	}
	return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("failurePolicy.maxRestarts %d: the JobSet is recreated (restart %d)", job.Retry.JobRetryCount, retriesSoFar+1)}
}

// GangTimeout is the job's own pod-group schedule timeout (a TrainJob
// runtime's coscheduling scheduleTimeoutSeconds); ok false when it has none.
func GangTimeout(job *jobs.Job) (int, bool) {
	if job == nil || job.Completion.GangTimeoutSeconds <= 0 {
		return 0, false
	}
	return job.Completion.GangTimeoutSeconds, true
}
