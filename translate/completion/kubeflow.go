package completion

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// Kubeflow replica types as jobs.Role.ReplicaType holds them (lower case).
const (
	rtChief     = "chief"
	rtMaster    = "master"
	rtPS        = "ps"
	rtWorker    = "worker"
	rtEvaluator = "evaluator"
)

// Kubeflow restart policies (spec/kubeflow.md §1.4).
const (
	RestartNever     = "Never"
	RestartOnFailure = "OnFailure"
	RestartAlways    = "Always"
	RestartExitCode  = "ExitCode"
)

// replicaType is the role's normalised Kubeflow replica type (the role name,
// lower-cased, when the reader left it empty).
func replicaType(r *jobs.Role) string {
	if r.ReplicaType != "" {
		return strings.ToLower(r.ReplicaType)
	}
	return strings.ToLower(r.Name)
}

// displayType is the canonical spelling the operators print (§1.2).
func displayType(rt string) string {
	switch rt {
	case rtChief:
		return "Chief"
	case rtMaster:
		return "Master"
	case rtPS:
		return "PS"
	case rtWorker:
		return "Worker"
	case rtEvaluator:
		return "Evaluator"
	case rtLauncher:
		return "Launcher"
	}
	return rt
}

// RestartPolicyOf is the role's restartPolicy, or the kind's default when the
// reader left it empty: Never for TFJob (§1.3), OnFailure for PyTorchJob
// (§4.1); "" for other kinds.
func RestartPolicyOf(job *jobs.Job, r *jobs.Role) string {
	if r.RestartPolicy != "" {
		return r.RestartPolicy
	}
	switch KindOf(job) {
	case jobs.CompletionPyTorch:
		return RestartOnFailure
	case jobs.CompletionTF:
		return RestartNever
	}
	return "" // PAI roles have no restartPolicy
}

// retryableExitCode: training-operator ≥ v1.5 IsRetryableExitCode — every
// code ≥ 128 (signal deaths) is retryable, 1–127 are permanent (§1.4).
func retryableExitCode(code int) bool { return code >= 128 }

// restartable reports whether the policy restarts a task that ended so.
func restartable(policy string, s State, exitCode int) bool {
	switch policy {
	case RestartAlways:
		return s == Succeeded || s == Failed
	case RestartOnFailure:
		return s == Failed
	case RestartExitCode:
		return s == Failed && retryableExitCode(exitCode)
	}
	return false
}

// keepOnDone: cleanPodPolicy None leaves running pods alone once the job is
// finished (§1.5). Empty, Running and All stop them (jobshift's default for
// an unset policy is Running: see README.md).
func keepOnDone(job *jobs.Job) bool { return strings.EqualFold(job.Retry.CleanPodPolicy, "None") }

// kubeflowFailure covers the failure rules TFJob and PyTorchJob share: the
// backoff limit, then a failed replica. ok is false when t's end fails
// nothing.
func kubeflowFailure(a *attempt, t Task, kind string, ignore bool) (decided, bool) {
	role := a.roles[t.Role]
	rt := replicaType(role)
	if bl := a.job.Retry.BackoffLimit; bl != nil && mpiBackoffApplies(a.job, role) && restartable(RestartPolicyOf(a.job, role), t.State, t.ExitCode) {
		// A task the policy restarts is only reported terminal once
		// TaskRestart refused: the backoff limit is reached (§1.4, §1.5:
		// all pods are deleted, cleanPodPolicy is not consulted).
		return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
			Reason: fmt.Sprintf("BackoffLimitExceeded: %s %s has failed because it has reached the specified backoff limit %d (task %s-%d ended with exit code %d and was not restarted)",
				kind, a.job.Name, *bl, t.Role, t.Index, t.ExitCode)}}, true
	}
	if t.State != Failed || ignore {
		return decided{}, false
	}
	n := 0
	for name, r := range a.roles {
		if replicaType(r) == rt {
			n += a.count(name, Failed)
		}
	}
	verb := "has failed"
	if kind == "PyTorchJob" {
		verb = "is failed"
	}
	return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
		Reason: fmt.Sprintf("%s %s %s because %d %s replica(s) failed (task %s-%d exited with %d)",
			kind, a.job.Name, verb, n, displayType(rt), t.Role, t.Index, t.ExitCode)}}, true
}

// allSucceeded reports whether every task of every role whose replica type
// is in types succeeded (replayed so far), and whether there is any such task.
func (a *attempt) allSucceeded(types ...string) (all, any bool) {
	all = true
	for name, r := range a.roles {
		rt := replicaType(r)
		for _, want := range types {
			if rt == want && r.Instances > 0 {
				any = true
				if a.count(name, Succeeded) != r.Instances {
					all = false
				}
			}
		}
	}
	return all && any, any
}

// tfRules: TFJob v1.9 UpdateJobStatus (spec/kubeflow.md §3, §1.6).
type tfRules struct{}

func (tfRules) onEnd(a *attempt, t Task) (decided, bool) {
	if t.State == Stopped {
		return decided{}, false
	}
	rt := replicaType(a.roles[t.Role])
	ignore := a.job.Completion.EnableDynamicWorker && rt == rtWorker
	if d, ok := kubeflowFailure(a, t, "TFJob", ignore); ok {
		return d, true
	}
	if t.State != Succeeded {
		return decided{}, false
	}
	var why string
	if all, any := a.allSucceeded(rtChief, rtMaster); any {
		if !all {
			return decided{}, false
		}
		why = "every Chief/Master replica succeeded"
	} else if all, any := a.allSucceeded(rtWorker); all {
		why = "every Worker replica succeeded"
	} else if !any || strings.EqualFold(a.job.Completion.SuccessPolicy, "AllWorkers") {
		return decided{}, false
	} else if w0, ok := a.worker0(); ok && a.ended[w0.TaskRef] && w0.State == Succeeded && w0.ExitCode == 0 {
		why = "Worker 0 succeeded"
	} else {
		return decided{}, false
	}
	return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
		Reason: fmt.Sprintf("TFJob %s successfully completed (%s)", a.job.Name, why)}}, true
}

// worker0 is task 0 of the (first) Worker role.
func (a *attempt) worker0() (Task, bool) {
	for _, ref := range a.order {
		if replicaType(a.roles[ref.Role]) == rtWorker && ref.Index == 0 {
			return a.tasks[ref], true
		}
	}
	return Task{}, false
}

func (tfRules) onAllEnded(a *attempt, last Task) decided {
	return kubeflowNoRule(a, last, "TFJob", "a TFJob succeeds when its Chief/Master succeeds, else when Worker 0 (or, with successPolicy AllWorkers, every Worker) succeeds")
}

// kubeflowNoRule: every task ended and no rule fired. The operator would
// leave the job Running forever with nothing running; jobshift ends it as
// failed so no driver waits forever (a jobshift rule, README.md).
func kubeflowNoRule(a *attempt, last Task, kind, rule string) decided {
	if d, ok := a.stopped(); ok {
		return d
	}
	return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: noRuleExitCode, Trigger: refOf(last),
		Reason: fmt.Sprintf("every task of %s %s ended but no success rule fired (%s); Kubeflow would leave it Running, jobshift fails it", kind, a.job.Name, rule)}}
}

// pytorchRules: PyTorchJob v1.9 UpdateJobStatus (spec/kubeflow.md §4.4).
type pytorchRules struct{}

func (pytorchRules) onEnd(a *attempt, t Task) (decided, bool) {
	if t.State == Stopped {
		return decided{}, false
	}
	if d, ok := kubeflowFailure(a, t, "PyTorchJob", false); ok {
		return d, true
	}
	if t.State != Succeeded {
		return decided{}, false
	}
	var why string
	if all, any := a.allSucceeded(rtMaster); any {
		if !all {
			return decided{}, false
		}
		why = "the Master succeeded"
	} else if all, _ := a.allSucceeded(rtWorker); all {
		why = "every Worker succeeded"
	} else if a.job.Extras.ElasticPolicy != nil && replicaType(a.roles[t.Role]) == rtWorker {
		why = "a Worker succeeded and elasticPolicy is set"
	} else {
		return decided{}, false
	}
	return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
		Reason: fmt.Sprintf("PyTorchJob %s is successfully completed (%s)", a.job.Name, why)}}, true
}

func (pytorchRules) onAllEnded(a *attempt, last Task) decided {
	return kubeflowNoRule(a, last, "PyTorchJob", "a PyTorchJob succeeds when its Master succeeds, else when every Worker (elastic: any Worker) succeeds")
}
