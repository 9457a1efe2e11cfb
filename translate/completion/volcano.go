package completion

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
)

// Volcano's lifecycle (volcano-sh/volcano @v1.16.0-alpha.1): an event
// about a pod or a task is matched against the task's policies, then the
// job's (applyPolicies, pkg/controllers/job/job_controller_util.go); the
// first match names the action the job's state executes
// (pkg/controllers/job/state/*.go); without a match the job only syncs
// (running.go: minSuccess, then "every pod ended").

// Volcano events jobshift raises (bus/v1alpha1 events.go).
const (
	EventAny           = "*"
	EventPodFailed     = "PodFailed"     // a pod ended Failed (its pod restartPolicy did not restart it)
	EventPodEvicted    = "PodEvicted"    // a pod was deleted: here, lost with its host (ExitHostLost)
	EventTaskCompleted = "TaskCompleted" // every pod of the task Succeeded
	EventTaskFailed    = "TaskFailed"    // a task's container restarts reached its maxRetry
	EventUnknown       = "Unknown"       // the PodGroup went Unknown: the gang cannot be placed
)

// Volcano actions (bus/v1alpha1 actions.go).
const (
	ActionAbortJob     = "AbortJob"
	ActionRestartJob   = "RestartJob"
	ActionRestartTask  = "RestartTask"
	ActionRestartPod   = "RestartPod"
	ActionTerminateJob = "TerminateJob"
	ActionCompleteJob  = "CompleteJob"
)

// VolcanoMatch is applyPolicies for an event about task (task "" for a
// job-level event such as Unknown, which has no task): the task's
// policies in order, then the job's; in each policy first its events (the
// event itself or "*"), then its exit code (compared with exitCode, which
// is the pod's first container's code for PodFailed and 0 otherwise, and 0
// is never a policy's code). The first match wins. PodPending is only
// matched with a timeout (shouldConfigureTimeout); jobshift never raises
// it.
func VolcanoMatch(v *jobs.Volcano, task, event string, exitCode int) (jobs.VolcanoPolicy, bool) {
	if v == nil {
		return jobs.VolcanoPolicy{}, false
	}
	if task != "" {
		for _, t := range v.Tasks {
			if t.Name != task {
				continue
			}
			if p, ok := firstPolicy(t.Policies, event, exitCode); ok {
				return p, true
			}
			break
		}
	}
	return firstPolicy(v.Policies, event, exitCode)
}

func firstPolicy(ps []jobs.VolcanoPolicy, event string, exitCode int) (jobs.VolcanoPolicy, bool) {
	for _, p := range ps {
		if len(p.Events) > 0 && event != "" && (hasEvent(p.Events, event) || hasEvent(p.Events, EventAny)) {
			if event != "PodPending" || p.TimeoutSeconds > 0 {
				return p, true
			}
		}
		if p.ExitCode != nil && *p.ExitCode == exitCode {
			return p, true
		}
	}
	return jobs.VolcanoPolicy{}, false
}

func hasEvent(list []string, e string) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// ExitHostLost is the exit code a driver reports for a task lost with its
// host (drivers/nomad ExitNodeLost: the allocation's client is lost):
// FrameworkController's NodeLost, which OpenPAI's table lists as transient
// (exitcodes.go).
const ExitHostLost = -1001

// volcanoRules: Decide for a Volcano Job.
type volcanoRules struct{}

// volcanoEvent is the event the end of t raises, and the exit code
// applyPolicies compares: a pod whose restartPolicy is Never ends Failed
// (PodFailed, its code); under OnFailure/Always the kubelet restarts it,
// and a task jobshift reports Failed is one whose restarts reached maxRetry
// (TaskFailed, code 0: updatePod sets the code only for PodFailed). A
// Succeeded pod raises TaskCompleted when its task's pods all Succeeded
// (jobCache.TaskCompleted), else nothing (job_controller_handler.go
// updatePod). A task lost with its host (ExitHostLost) is a pod deleted
// from its lost node (the node controller's eviction of its pods, or pod
// GC): deletePod raises PodEvicted, with no exit code, whatever the pod's
// restartPolicy (job_controller_handler.go deletePod, @v1.16.0-alpha.1).
func volcanoEvent(a *attempt, t Task) (string, int) {
	r := a.roles[t.Role]
	switch t.State {
	case Failed:
		if t.ExitCode == ExitHostLost {
			return EventPodEvicted, 0
		}
		if r.RestartPolicy == "Never" {
			return EventPodFailed, t.ExitCode
		}
		return EventTaskFailed, 0
	case Succeeded:
		if r.Instances > 0 && a.count(t.Role, Succeeded) == r.Instances {
			return EventTaskCompleted, 0
		}
	}
	return "", 0
}

func (volcanoRules) onEnd(a *attempt, t Task) (decided, bool) {
	v := a.job.Extras.Volcano
	if t.State == Stopped || v == nil {
		return decided{}, false
	}
	if ev, code := volcanoEvent(a, t); ev != "" {
		if p, ok := VolcanoMatch(v, t.Role, ev, code); ok {
			if p.TimeoutSeconds > 0 {
				// job_controller_util.go applyPolicies: the action waits
				// for the timeout, and this event gets no sync (delayed.go)
				a.hold(t, ev, p)
				return decided{}, false
			}
			if d, ok := volcanoAct(a, t, ev, p); ok {
				return d, true
			}
		}
	}
	// running.go SyncJob: minSuccess reached completes the job at once
	if v.MinSuccess != nil && a.countAll(Succeeded) >= *v.MinSuccess {
		return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
			Reason: fmt.Sprintf("Volcano Job %s Completed: %d pods succeeded, minSuccess %d", a.job.Name, a.countAll(Succeeded), *v.MinSuccess)}}, true
	}
	return decided{}, false
}

// volcanoAct executes a matched policy's action (running.go Execute):
// CompleteJob → Completing → Completed; AbortJob → Aborted and
// TerminateJob → Terminated, which jobshift reports as failures; RestartJob
// ends the attempt (JobRetry runs it again while maxRetry allows);
// RestartPod and RestartTask were offered as in-place restarts
// (TaskRestartDecision) before the task counted as ended, so reaching
// here means maxRetry refused them: restarting.go fails the job.
func volcanoAct(a *attempt, t Task, ev string, p jobs.VolcanoPolicy) (decided, bool) {
	why := fmt.Sprintf("%s of %s-%d", ev, t.Role, t.Index)
	if p.ExitCode != nil {
		why = fmt.Sprintf("exit code %d of %s-%d", t.ExitCode, t.Role, t.Index)
	}
	v := Verdict{Trigger: refOf(t)}
	switch p.Action {
	case ActionCompleteJob:
		v.Phase, v.Reason = PhaseSucceeded, fmt.Sprintf("Volcano Job %s Completed: %s → CompleteJob", a.job.Name, why)
	case ActionAbortJob, ActionTerminateJob:
		state := map[string]string{ActionAbortJob: "Aborted", ActionTerminateJob: "Terminated"}[p.Action]
		v.Phase, v.ExitCode, v.Reason = PhaseFailed, failCode(t), fmt.Sprintf("Volcano Job %s %s: %s → %s", a.job.Name, state, why, p.Action)
	case ActionRestartJob:
		v.Phase, v.ExitCode, v.Reason = PhaseFailed, failCode(t), fmt.Sprintf("Volcano Job %s Restarting: %s → RestartJob", a.job.Name, why)
		v.PolicyAction = ActionRestartJob
	case ActionRestartPod, ActionRestartTask:
		if ev == EventPodEvicted {
			// Volcano recreates the pod elsewhere (syncJob); the host of
			// a task jobshift restarts in place is gone with its loop
			v.Phase, v.ExitCode, v.Reason = PhaseFailed, failCode(t), fmt.Sprintf("Volcano Job %s Failed: %s → %s, but a task lost with its host cannot be restarted in place (RestartJob runs the whole job again)", a.job.Name, why, p.Action)
			break
		}
		v.Phase, v.ExitCode, v.Reason = PhaseFailed, failCode(t), fmt.Sprintf("Volcano Job %s Failed: %s → %s, but maxRetry %d is reached", a.job.Name, why, p.Action, a.job.Extras.Volcano.MaxRetry)
	default:
		return decided{}, false
	}
	return decided{Verdict: v}, true
}

// onAllEnded is running.go SyncJob once Succeeded+Failed equals the
// replicas: when the job's minAvailable is at least the tasks' minAvailable
// sum, a task with fewer Succeeded pods than its minAvailable fails the
// job; then minSuccess not reached fails it; then Succeeded ≥ the job's
// minAvailable completes it, else it fails.
func (volcanoRules) onAllEnded(a *attempt, last Task) decided {
	if d, ok := a.stopped(); ok {
		return d
	}
	v := a.job.Extras.Volcano
	ok, n := a.countAll(Succeeded), a.job.TaskCount()
	fail := func(why string) decided {
		code := noRuleExitCode
		for _, ref := range a.order {
			if t := a.tasks[ref]; t.State == Failed {
				return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t), Reason: why}}
			}
		}
		return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: code, Trigger: refOf(last), Reason: why}}
	}
	sum := 0
	for _, t := range v.Tasks {
		sum += t.MinAvailable
	}
	if v.MinAvailable >= sum {
		for _, t := range v.Tasks {
			if c := a.count(t.Name, Succeeded); c < t.MinAvailable {
				return fail(fmt.Sprintf("Volcano Job %s Failed: every pod ended and task %s has %d Succeeded pods, below its minAvailable %d", a.job.Name, t.Name, c, t.MinAvailable))
			}
		}
	}
	switch {
	case v.MinSuccess != nil && ok < *v.MinSuccess:
		return fail(fmt.Sprintf("Volcano Job %s Failed: every pod ended with %d Succeeded, below minSuccess %d", a.job.Name, ok, *v.MinSuccess))
	case ok >= v.MinAvailable:
		return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(last),
			Reason: fmt.Sprintf("Volcano Job %s Completed: every pod ended, %d of %d Succeeded (minAvailable %d)", a.job.Name, ok, n, v.MinAvailable)}}
	}
	return fail(fmt.Sprintf("Volcano Job %s Failed: every pod ended with %d Succeeded, below minAvailable %d", a.job.Name, ok, v.MinAvailable))
}

// volcanoRestart is TaskRestartDecision for a Volcano task that just
// ended with exitCode. restartsSoFar is the count VolcanoRestartCounter
// names: for the kubelet's restarts, the restarts of the role's pods
// (cache.go TaskFailed sums the restartCount of the task's pods,
// @v1.16.0-alpha.1); for a policy's, the job's RetryCount
// (VolcanoRetryCount: every RestartPod, RestartTask and RestartJob of
// every attempt so far).
//
// First the pod's restartPolicy (the kubelet): Always restarts any end,
// OnFailure a non-zero code; Volcano raises TaskFailed once the task's
// restarts reach its maxRetry (-1: never; jobCache.TaskFailed), where
// jobshift stops restarting (the kubelet would go on while no TaskFailed
// policy acts). Then, for a pod that ended Failed (PodFailed), a matching
// RestartPod or RestartTask policy restarts it while the job's RetryCount
// stays below maxRetry (running.go increments it, restarting.go fails the
// job when RetryCount ≥ maxRetry). This decides the failed pod's restart;
// a RestartTask's restart of the task's other pods, uncounted, is the
// attempt machine's (machine_vtask.go) and the Slurm task loop's.
func volcanoRestart(job *jobs.Job, r *jobs.Role, exitCode, restartsSoFar int) RetryDecision {
	v := job.Extras.Volcano
	if v == nil {
		return RetryDecision{Reason: "no Volcano lifecycle"}
	}
	if volcanoKubelet(r, exitCode) {
		max := DefaultVolcanoTaskMaxRetry
		for _, t := range v.Tasks {
			if t.Name == r.Name {
				max = t.MaxRetry
			}
		}
		if max >= 0 && restartsSoFar >= max {
			return RetryDecision{Reason: fmt.Sprintf("the task's restarts reached its maxRetry %d (TaskFailed)", max)}
		}
		return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("pod restartPolicy %s restarts a container that exited with %d", r.RestartPolicy, exitCode)}
	}
	if exitCode == 0 {
		return RetryDecision{Reason: "the pod succeeded"}
	}
	p, ok := VolcanoMatch(v, r.Name, EventPodFailed, exitCode)
	if !ok || p.Action != ActionRestartPod && p.Action != ActionRestartTask {
		return RetryDecision{Reason: "no RestartPod or RestartTask policy for this PodFailed"}
	}
	if restartsSoFar+1 >= v.MaxRetry {
		return RetryDecision{Reason: fmt.Sprintf("%s: maxRetry %d reached (%d restarts so far)", p.Action, v.MaxRetry, restartsSoFar)}
	}
	return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("PodFailed with exit code %d → %s (restart %d of maxRetry %d)", exitCode, p.Action, restartsSoFar+1, v.MaxRetry)}
}

// VolcanoRestartTarget is the action of the PodFailed policy that
// restarts role's pod in place after exit code exitCode: ActionRestartPod
// (Volcano kills that pod: KillTarget TargetTypePod), ActionRestartTask
// (every pod of the task: TargetTypeTask, job_controller_actions.go
// killPods @v1.16.0-alpha.1), or "" (no such policy, or a code 0, which
// is no PodFailed). Whether maxRetry still allows it is volcanoRestart's.
func VolcanoRestartTarget(job *jobs.Job, role string, exitCode int) string {
	v := job.Extras.Volcano
	if v == nil || exitCode == 0 {
		return ""
	}
	p, ok := VolcanoMatch(v, role, EventPodFailed, exitCode)
	if !ok || p.Action != ActionRestartPod && p.Action != ActionRestartTask {
		return ""
	}
	return p.Action
}

// volcanoKubelet: the pod's restartPolicy restarts a container that
// exited with exitCode (the kubelet: Always any end, OnFailure a non-zero
// code); the pod does not end, and no policy sees it.
func volcanoKubelet(r *jobs.Role, exitCode int) bool {
	return r.RestartPolicy == "Always" || r.RestartPolicy == "OnFailure" && exitCode != 0
}

// VolcanoRestartCounter names the counter of in-place restarts that
// TaskRestartDecision reads for the end of role r's task with exitCode in
// a Volcano Job: the role's name for the kubelet's restarts, which count
// per task (cache.go TaskFailed), "" for a policy's (RestartPod,
// RestartTask), which count in the job's RetryCount (VolcanoRetryCount).
// A driver passes that counter's value as restartsSoFar and adds a
// counted restart to it.
func VolcanoRestartCounter(r *jobs.Role, exitCode int) string {
	if volcanoKubelet(r, exitCode) {
		return r.Name
	}
	return ""
}

// DefaultVolcanoTaskMaxRetry is jobCache.TaskFailed's maxRetry for a task
// that has none (the webhook sets it to 3 too).
const DefaultVolcanoTaskMaxRetry = 3

// VolcanoRetryCount is the job's status.retryCount after restartJobs
// RestartJob retries and policyRestarts in-place restarts by RestartPod
// or RestartTask policies, over every attempt: state/running.go and
// state/pending.go increment the one RetryCount for all three actions,
// and nothing resets it when the job restarts (@v1.16.0-alpha.1). The
// kubelet's container restarts are not in it.
func VolcanoRetryCount(restartJobs, policyRestarts int) int {
	return restartJobs + policyRestarts
}

// volcanoRetry is JobRetry for a Volcano Job: only a RestartJob verdict
// runs the job again, counted, while RetryCount+1 < maxRetry
// (restartingUpdateStatus fails the job once RetryCount ≥ maxRetry, after
// running.go incremented it). retriesSoFar is the job's RetryCount
// (VolcanoRetryCount), in-place restarts by policies included.
func volcanoRetry(job *jobs.Job, v Verdict, retriesSoFar int) RetryDecision {
	if v.PolicyAction != ActionRestartJob {
		return RetryDecision{Reason: "a Volcano Job runs again only on RestartJob"}
	}
	max := job.Extras.Volcano.MaxRetry
	if retriesSoFar+1 >= max {
		return RetryDecision{Reason: fmt.Sprintf("RestartJob: maxRetry %d reached (%d retries so far); the job Failed", max, retriesSoFar)}
	}
	return RetryDecision{Retry: true, Counted: true, Reason: fmt.Sprintf("RestartJob: retry %d of maxRetry %d", retriesSoFar+1, max)}
}

// volcanoGang is the verdict when the gang cannot be placed within the
// gang timeout: the PodGroup's Unknown event, matched against the job's
// policies (a PodGroup event names no task); without one Volcano leaves
// the job Pending, and jobshift fails it as for any job.
func volcanoGang(job *jobs.Job, generic Verdict) Verdict {
	p, ok := VolcanoMatch(job.Extras.Volcano, "", EventUnknown, 0)
	if !ok {
		return generic
	}
	v := generic
	v.Reason = fmt.Sprintf("Unknown (%s) → %s", generic.Reason, p.Action)
	switch p.Action {
	case ActionCompleteJob:
		v.Phase, v.ExitCode = PhaseSucceeded, 0
	case ActionRestartJob:
		v.PolicyAction = ActionRestartJob
	}
	return v
}
