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
	case "scheduler":
		return "Scheduler"
	case "server":
		return "Server"
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

// retryableExitCode is IsRetryableExitCode (pkg/util/train/train_util.go)
// of the job's generation (spec/kubeflow.md §1.4). kubeflow.org/v1, read
// as training-operator v1.9 (kubeflow/common ≥ v0.4.3, PR #190): every
// code ≥ 128 is retryable, 1–127 are permanent. v1alpha2 … v1beta2
// (tf-operator v0.2 … v1.0.0-rc.0, pytorch-operator, which vendored it):
// only 130, 137, 143 (SIGINT, SIGKILL, SIGTERM) and 138 (SIGUSR1, the
// user's "retry me" code); everything else, 128 and 139 included, is
// permanent.
func retryableExitCode(job *jobs.Job, code int) bool {
	if job.KubeflowGen() == jobs.KubeflowGenPreV1 {
		return code == 130 || code == 137 || code == 143 || code == 138
	}
	return code >= 128
}

// restartable reports whether role's restart policy restarts a task of it
// that ended so.
func restartable(job *jobs.Job, r *jobs.Role, s State, exitCode int) bool {
	if chiefEndsJob(job, r, s, exitCode) {
		return false
	}
	switch RestartPolicyOf(job, r) {
	case RestartAlways:
		return s == Succeeded || s == Failed
	case RestartOnFailure:
		return s == Failed
	case RestartExitCode:
		return s == Failed && retryableExitCode(job, exitCode)
	}
	return false
}

// Restartable reports whether a task of role that ended with exitCode (0:
// succeeded) is restarted in place by its Kubeflow restart policy, before
// any backoffLimit: the per-code table drivers render (Slurm).
func Restartable(job *jobs.Job, role string, exitCode int) bool {
	r := job.Role(role)
	if r == nil {
		return false
	}
	s := Succeeded
	if exitCode != 0 {
		s = Failed
	}
	return restartable(job, r, s, exitCode)
}

// keepOnDone: cleanPodPolicy None leaves running pods alone once the job is
// finished (§1.5). Empty, Running and All stop them (jobshift's default for
// an unset policy is Running: see README.md).
func keepOnDone(job *jobs.Job) bool { return strings.EqualFold(job.Retry.CleanPodPolicy, "None") }

// limitKeeps: past backoffLimit or activeDeadlineSeconds, training-operator
// v1.9.4 sets JobFailed before DeletePodsAndServices, which then honours
// cleanPodPolicy None and keeps the pods (pkg/controller.v1/common/job.go
// ReconcileJobs @v1.9.4, kubeflow/trainer#3419; job_test.go
// TestBackoffLimitExceededRespectsCleanPodPolicy). Until v1.9.3 every pod
// was deleted. jobshift reads XGBoostJob, PaddleJob and JAXJob through
// v1.9.4; MXJob ended at v1.8.1 and TFJob and PyTorchJob follow the v1.9.0
// rules of spec/kubeflow.md §1.5.
func limitKeeps(job *jobs.Job) bool {
	switch job.Source.Format {
	case jobs.FormatXGBoostJob, jobs.FormatPaddleJob, jobs.FormatJAXJob:
		return keepOnDone(job)
	}
	return false
}

// kubeflowFailure covers the failure rules TFJob and PyTorchJob share: the
// backoff limit, then a failed replica. ok is false when t's end fails
// nothing.
func kubeflowFailure(a *attempt, t Task, kind string, ignore bool) (decided, bool) {
	role := a.roles[t.Role]
	rt := replicaType(role)
	if bl := a.job.Retry.BackoffLimit; bl != nil && mpiBackoffApplies(a.job, role) && restartable(a.job, role, t.State, t.ExitCode) {
		// A task the policy restarts is only reported terminal once
		// TaskRestart refused: the backoff limit is reached (§1.4, §1.5:
		// all pods are deleted, cleanPodPolicy is not consulted, except
		// for the kinds read through v1.9.4: limitKeeps).
		return decided{keep: limitKeeps(a.job), Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
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
	verb := "is failed" // PyTorchJob and the other kinds (UpdateJobStatus @v1.9.0, mxjob_controller.go @v1.8.1)
	if kind == "TFJob" || kind == "MPIJob" {
		verb = "has failed"
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
	if a.w0 == nil {
		return Task{}, false
	}
	return a.tasks[*a.w0], true
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

// pytorchRules: PyTorchJob v1.9 UpdateJobStatus (spec/kubeflow.md §4.4),
// which the other training-operator kinds share (README Y6–Y9): XGBoostJob
// and PaddleJob (a Master decides, else every Worker), JAXJob (every
// Worker), MXJob (its Scheduler, else a single Worker; Decider).
type pytorchRules struct{}

func (pytorchRules) onEnd(a *attempt, t Task) (decided, bool) {
	if t.State == Stopped {
		return decided{}, false
	}
	kind := kindName(a.job)
	if d, ok := kubeflowFailure(a, t, kind, false); ok {
		return d, true
	}
	if t.State != Succeeded {
		return decided{}, false
	}
	dec := Decider(a.job)
	var why string
	if all, any := a.allSucceeded(dec); any {
		if !all {
			return decided{}, false
		}
		why = "the " + displayType(dec) + " succeeded"
	} else if all, _ := a.allSucceeded(rtWorker); all && WorkersDecide(a.job) {
		why = "every Worker succeeded"
	} else if a.job.Extras.ElasticPolicy != nil && replicaType(a.roles[t.Role]) == rtWorker {
		why = "a Worker succeeded and elasticPolicy is set"
	} else {
		return decided{}, false
	}
	return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
		Reason: fmt.Sprintf("%s %s is successfully completed (%s)", kind, a.job.Name, why)}}, true
}

func (pytorchRules) onAllEnded(a *attempt, last Task) decided {
	kind := kindName(a.job)
	rule := "a PyTorchJob succeeds when its Master succeeds, else when every Worker (elastic: any Worker) succeeds"
	switch a.job.Source.Format {
	case jobs.FormatXGBoostJob, jobs.FormatPaddleJob:
		rule = "a " + kind + " succeeds when its Master succeeds, else when every Worker succeeds"
	case jobs.FormatJAXJob:
		rule = "a JAXJob succeeds when every Worker succeeds"
	case jobs.FormatMXJob:
		rule = "an MXJob succeeds when its Scheduler succeeds, or its single Worker when it has neither Scheduler nor Server"
	}
	return kubeflowNoRule(a, last, kind, rule)
}

// kindName is the kind the operator's messages name.
func kindName(job *jobs.Job) string {
	switch job.Source.Format {
	case jobs.FormatXGBoostJob:
		return "XGBoostJob"
	case jobs.FormatPaddleJob:
		return "PaddleJob"
	case jobs.FormatJAXJob:
		return "JAXJob"
	case jobs.FormatMXJob:
		return "MXJob"
	}
	return "PyTorchJob"
}

// Decider is the replica type whose success ends a job of the pytorch
// rule family: jobs.Completion.Decider, by default the Master.
func Decider(job *jobs.Job) string {
	if d := strings.ToLower(job.Completion.Decider); d != "" {
		return d
	}
	return rtMaster
}

// WorkersDecide reports whether, with no task of the Decider type, every
// Worker succeeding ends the job: always for the Master decider
// (PyTorchJob, XGBoostJob, PaddleJob, JAXJob); for the MXJob Scheduler only
// when the job is a single Worker with no Scheduler and no Server
// (isSingleWorker, pkg/controller.v1/mxnet/mxjob_controller.go @v1.8.1).
func WorkersDecide(job *jobs.Job) bool {
	if Decider(job) == rtMaster {
		return true
	}
	var workers, others int
	for _, r := range job.Roles {
		switch replicaType(r) {
		case rtWorker:
			workers += r.Instances
		case "scheduler", "server":
			others += r.Instances
		}
	}
	return workers == 1 && others == 0
}

// chiefDecides reports whether the job follows the v1alpha1 operators'
// rule: the job's state is its chief's state alone (tf-operator
// pkg/trainer/training.go GetStatus @v0.1.0, terminationPolicy chief
// MASTER/0; pytorch-operator pkg/trainer/training.go GetStatus before PR
// #110, terminationPolicy master MASTER/0). Other replicas never fail or
// complete the job.
func chiefDecides(job *jobs.Job) bool { return job.KubeflowGen() == jobs.KubeflowGenV1Alpha1 }

// isChief: the chief is task 0 of the MASTER replica (jobshift reads no
// other terminationPolicy without -lossy).
func isChief(r *jobs.Role, index int) bool { return replicaType(r) == rtMaster && index == 0 }

// chiefEndsJob reports whether a v1alpha1 TFJob's chief ended the job
// whatever its pod's restartPolicy: the operator read the chief's
// LastTerminationState (replicaStatusFromPodList, pkg/trainer/replicas.go
// @v0.1.0), so exit 0 succeeds the job even under Always and exit 1–127 fails
// it even under OnFailure (isRetryableTerminationState: 1–127 are
// permanent); other codes are "retryable" and the pod policy applies. The
// v1alpha1 PyTorch operator looked at the current state only, so there the
// pod policy decides what the chief's end means. The rule is applied to
// every task of the MASTER role, as restart decisions are made per role
// (v1alpha1 had one master in practice).
func chiefEndsJob(job *jobs.Job, r *jobs.Role, s State, exitCode int) bool {
	if !chiefDecides(job) || job.Source.Format != jobs.FormatTFJob || replicaType(r) != rtMaster {
		return false
	}
	return s == Succeeded || s == Failed && exitCode >= 1 && exitCode <= 127
}

// chiefRules: the v1alpha1 operators (chiefDecides).
type chiefRules struct{ kind string }

func (c chiefRules) onEnd(a *attempt, t Task) (decided, bool) {
	r := a.roles[t.Role]
	if t.State == Stopped || !isChief(r, t.Index) {
		return decided{}, false
	}
	switch {
	case t.State == Succeeded:
		return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
			Reason: fmt.Sprintf("%s %s succeeded: its chief (MASTER 0) exited with 0", c.kind, a.job.Name)}}, true
	case c.kind == "PyTorchJob" || t.ExitCode >= 1 && t.ExitCode <= 127:
		return decided{keep: keepOnDone(a.job), Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
			Reason: fmt.Sprintf("%s %s failed: its chief (MASTER 0) exited with %d", c.kind, a.job.Name, t.ExitCode)}}, true
	}
	return decided{}, false
}

func (c chiefRules) onAllEnded(a *attempt, last Task) decided {
	return kubeflowNoRule(a, last, c.kind, "a v1alpha1 job ends with its chief, MASTER 0: exit 0 succeeds it, a permanent failure fails it")
}
