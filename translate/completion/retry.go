package completion

import (
	"fmt"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// JobRetry decides whether to run the whole job again after an attempt ended
// with verdict v; retriesSoFar counts the earlier retries that were Counted.
//
// PAI (spec/pai.md §4.2, FrameworkController RetryPolicySpec): jobRetryCount
// -2 retries always, even after success (non-fancy); otherwise fancy:
// transient failures always (not counted), permanent never, unknown while
// retriesSoFar < jobRetryCount, or always when it is -1. The class is that of
// the code OpenPAI would have reported (PAIExitCode) in the job's era.
// Kubeflow jobs are never retried as a whole: their retries are the in-place
// restarts of TaskRestart, bounded by backoffLimit.
func JobRetry(job *jobs.Job, v Verdict, retriesSoFar int) RetryDecision {
	switch {
	case job == nil:
		return RetryDecision{Reason: "no job"}
	case !v.Phase.Done():
		return RetryDecision{Reason: "the attempt has not ended"}
	case v.Phase == PhaseStopped:
		return RetryDecision{Reason: "the job was stopped"}
	case KindOf(job) == jobs.CompletionTF, KindOf(job) == jobs.CompletionPyTorch, KindOf(job) == jobs.CompletionMPI:
		return RetryDecision{Reason: "Kubeflow jobs are not retried as a whole (restartPolicy restarts tasks in place, bounded by backoffLimit)"}
	case KindOf(job) == jobs.CompletionJobSet:
		return jobsetRetry(job, v, retriesSoFar)
	case KindOf(job) == jobs.CompletionVolcano && job.Extras.Volcano != nil:
		return volcanoRetry(job, v, retriesSoFar)
	case KindOf(job) != jobs.CompletionPAI:
		return RetryDecision{Reason: "this job kind has no retry policy"}
	}
	max := job.Retry.JobRetryCount
	if max == -2 {
		// Non-fancy MaxRetryCount -2: "will retry and AccountableRetriedCount++"
		// whatever the outcome. Unbounded, as on PAI (README.md).
		return RetryDecision{Retry: true, Counted: true, Reason: "jobRetryCount -2: always retried, even after success"}
	}
	if v.Phase == PhaseSucceeded {
		return RetryDecision{Reason: "the job succeeded"}
	}
	// PAI sets fancyRetryPolicy for every count but -2 (§1, §2.3), so
	// Retry.Fancy adds nothing here.
	return normalOrFancy(max, true, v.ExitCode, PAIEra(job), retriesSoFar, "jobRetryCount")
}

// normalOrFancy applies FrameworkController's RetryPolicy to a failure with
// raw exit code raw.
func normalOrFancy(max int, fancy bool, raw int, era string, soFar int, what string) RetryDecision {
	rep := PAIExitCode(raw, era)
	if fancy {
		switch ClassifyPAIExit(rep, era) {
		case Transient:
			return RetryDecision{Retry: true, Reason: fmt.Sprintf("exit code %d (reported %d) is transient: always retried, not counted", raw, rep)}
		case Permanent:
			return RetryDecision{Reason: fmt.Sprintf("exit code %d (reported %d) is permanent: never retried", raw, rep)}
		}
	}
	switch {
	case max == -1:
		return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("%s -1: every failure is retried", what)}
	case soFar < max:
		return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("exit code %d (reported %d): retry %d of %s %d", raw, rep, soFar+1, what, max)}
	}
	return RetryDecision{Reason: fmt.Sprintf("exit code %d (reported %d): %s %d exhausted", raw, rep, what, max)}
}

// TaskRestart reports whether a task of role that just ended with exitCode
// is restarted in place (TaskRestartDecision(...).Retry).
func TaskRestart(job *jobs.Job, role string, exitCode int, restartsSoFar int) bool {
	return TaskRestartDecision(job, role, exitCode, restartsSoFar).Retry
}

// TaskRestartDecision decides an in-place restart of a task of role that
// just ended (exit code 0 = succeeded). restartsSoFar is, for PAI, this
// task's Counted restarts; for Kubeflow, the Counted restarts of every task
// of the attempt (backoffLimit is job-wide) — RestartsSoFar computes either.
// Drivers do not restart anything once Decide returned a final verdict.
//
// PAI (§4.2): only with extras.gangAllocation false, under
// {fancy: true, maxRetryCount: taskRetryCount}. Kubeflow (§1.4): Never no;
// OnFailure on a non-zero exit; Always on any exit; ExitCode on codes ≥ 128;
// each restart counts, and the restart that would bring the total to
// backoffLimit is refused (the operator fails the job as soon as the
// restart count reaches backoffLimit).
func TaskRestartDecision(job *jobs.Job, role string, exitCode int, restartsSoFar int) RetryDecision {
	if job == nil {
		return RetryDecision{Reason: "no job"}
	}
	r := job.Role(role)
	if r == nil {
		return RetryDecision{Reason: fmt.Sprintf("no role %q", role)}
	}
	switch KindOf(job) {
	case jobs.CompletionPAI:
		if job.Retry.GangAllocation {
			return RetryDecision{Reason: "gang allocation: tasks are never retried alone (taskRetryCount needs extras.gangAllocation false)"}
		}
		if exitCode == 0 {
			return RetryDecision{Reason: "the task succeeded"}
		}
		return normalOrFancy(r.TaskRetryCount, true, exitCode, PAIEra(job), restartsSoFar, "taskRetryCount")
	case jobs.CompletionJobSet:
		return jobsetRestart(r, exitCode, restartsSoFar)
	case jobs.CompletionTF, jobs.CompletionPyTorch, jobs.CompletionMPI:
		pol := RestartPolicyOf(job, r)
		s := Succeeded
		if exitCode != 0 {
			s = Failed
		}
		if !restartable(job, r, s, exitCode) {
			if chiefEndsJob(job, r, s, exitCode) {
				return RetryDecision{Reason: fmt.Sprintf("v1alpha1: the chief's exit code %d ends the job whatever its restartPolicy", exitCode)}
			}
			if pol == RestartExitCode && exitCode != 0 {
				which := "1-127"
				if job.KubeflowGen() == jobs.KubeflowGenPreV1 {
					which = "all but 130, 137, 138, 143 before kubeflow.org/v1"
				}
				return RetryDecision{Reason: fmt.Sprintf("restartPolicy ExitCode: exit code %d is permanent (%s)", exitCode, which)}
			}
			return RetryDecision{Reason: fmt.Sprintf("restartPolicy %s does not restart a task that exited with %d", pol, exitCode)}
		}
		if bl := job.Retry.BackoffLimit; bl != nil && mpiBackoffApplies(job, r) && restartsSoFar+1 >= *bl {
			return RetryDecision{Reason: fmt.Sprintf("backoffLimit %d reached (%d restarts so far)", *bl, restartsSoFar)}
		}
		return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("restartPolicy %s restarts a task that exited with %d", pol, exitCode)}
	case jobs.CompletionVolcano:
		return volcanoRestart(job, r, exitCode, restartsSoFar)
	}
	return RetryDecision{Reason: "no task restarts for this job kind"}
}

// RestartsSoFar is the restartsSoFar TaskRestartDecision expects for task t:
// t's own Restarts (PAI) or the sum over tasks (Kubeflow).
func RestartsSoFar(job *jobs.Job, t TaskRef, tasks []Task) int {
	n := 0
	k := KindOf(job)
	for _, x := range tasks {
		if k == jobs.CompletionTF || k == jobs.CompletionPyTorch || k == jobs.CompletionVolcano || x.TaskRef == t || k == jobs.CompletionJobSet && x.Role == t.Role {
			n += x.Restarts
		}
	}
	return n
}

// Deadline is Kubeflow's runPolicy.activeDeadlineSeconds, measured from the
// job's start (§1.5); ok is false when there is none.
func Deadline(job *jobs.Job) (time.Duration, bool) {
	if job == nil || job.Retry.ActiveDeadlineSeconds == nil || *job.Retry.ActiveDeadlineSeconds < 0 {
		return 0, false
	}
	return time.Duration(*job.Retry.ActiveDeadlineSeconds) * time.Second, true
}

// DeadlineVerdict is the verdict once Deadline has passed: failed, every
// task not yet terminal stopped (the operator deletes all pods whatever
// cleanPodPolicy says, §1.5; for the kinds read through v1.9.4 cleanPodPolicy
// None keeps them: limitKeeps). Deadline passing ends the job, so drivers
// call this instead of Decide then; it is not retried.
func DeadlineVerdict(job *jobs.Job, tasks []Task) Verdict {
	if job == nil {
		return Verdict{Phase: PhaseFailed, ExitCode: deadlineExitCode, Reason: "DeadlineExceeded"}
	}
	a := newAttempt(job, tasks)
	secs := int64(0)
	if job.Retry.ActiveDeadlineSeconds != nil {
		secs = *job.Retry.ActiveDeadlineSeconds
	}
	return a.finish(decided{keep: limitKeeps(job), Verdict: Verdict{Phase: PhaseFailed, ExitCode: deadlineExitCode,
		Reason: fmt.Sprintf("DeadlineExceeded: job %s was active longer than specified deadline (activeDeadlineSeconds %d)", job.Name, secs)}})
}

// DecidingRoles lists, in job order, the roles whose task ends can fire a
// rule while other tasks still run (what the Slurm script must wait on). Any
// role can still be the last one to end, which fires PAI's "all completed"
// rule and the jobshift no-rule-left rule.
//
// PAI: roles with minFailed or minSucceeded ≥ 1. TFJob: every role (any
// replica's failure fails the job), except Workers under
// enableDynamicWorker when a Chief/Master exists (their failures are
// ignored and success is the Chief's). PyTorchJob: every role. v1alpha1
// TFJob and PyTorchJob: the MASTER role only (chiefDecides). MPIJob: the
// launcher.
func DecidingRoles(job *jobs.Job) []string {
	if job == nil {
		return nil
	}
	var out []string
	k := KindOf(job)
	hasChief := false
	for _, r := range job.Roles {
		if r != nil && r.Instances > 0 {
			if rt := replicaType(r); rt == rtChief || rt == rtMaster {
				hasChief = true
			}
		}
	}
	for _, r := range job.Roles {
		if r == nil || r.Instances <= 0 {
			continue
		}
		switch k {
		case jobs.CompletionPAI:
			_, f := Threshold(r.MinFailed)
			_, s := Threshold(r.MinSucceeded)
			if !f && !s {
				continue
			}
		case jobs.CompletionTF, jobs.CompletionPyTorch:
			if chiefDecides(job) && replicaType(r) != rtMaster {
				continue
			}
			if k == jobs.CompletionTF && hasChief && job.Completion.EnableDynamicWorker && replicaType(r) == rtWorker {
				continue
			}
		case jobs.CompletionMPI:
			if replicaType(r) != rtLauncher {
				continue // only the launcher decides (mpi.go)
			}
		}
		out = append(out, r.Name)
	}
	return out
}
