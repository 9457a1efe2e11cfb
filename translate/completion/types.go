package completion

import "github.com/jobshift/jobshift/jobs"

// State is one task's state as a driver observed it.
type State string

const (
	Pending   State = "pending"
	Running   State = "running"
	Succeeded State = "succeeded"
	Failed    State = "failed"
	// Stopped: ended by jobshift (completion fired, or the user stopped the
	// job); neither a success nor a failure of that task.
	Stopped State = "stopped"
)

// Terminal reports whether s is a final state.
func (s State) Terminal() bool { return s == Succeeded || s == Failed || s == Stopped }

// TaskRef names one task: a role and a 0-based index.
type TaskRef = jobs.TaskRef

// Task is the observed state of one task of the current attempt.
//
// A task is reported Failed (or Succeeded) only once its own in-place
// restarts are over: the driver asks TaskRestart first and reports the task
// terminal only when the answer is no. Decide relies on this.
type Task struct {
	TaskRef
	State    State `json:"state"`
	ExitCode int   `json:"exitCode"`
	// Restarts is how many times this task was restarted in place (task-level
	// retries: PAI taskRetryCount without gang, Kubeflow OnFailure/ExitCode)
	// that counted against a limit (RetryDecision.Counted); PAI's transient
	// restarts, which never count, are not included.
	Restarts int `json:"restarts,omitempty"`
	// Seq orders terminal tasks: any counter that grows with the time the
	// driver observed the task end (an event number, a timestamp). Decide
	// replays terminal tasks in Seq order, ties broken by role order then
	// index, so the first rule that fired stays the verdict however many
	// tasks end afterwards. 0 for every task means "order unknown".
	Seq int64 `json:"seq,omitempty"`
	// Fired (Volcano) is where, in Seq order, the delayed action of a
	// policy with a timeout that this task's end matched was executed:
	// its timeout ran out before any rule decided (0: not yet). Only the
	// holder of a clock sets it (Machine.Tick); Decide replays it there.
	Fired int64 `json:"fired,omitempty"`
}

// Phase is a job attempt's state.
type Phase string

const (
	PhaseRunning   Phase = "running"
	PhaseSucceeded Phase = "succeeded"
	PhaseFailed    Phase = "failed"
	// PhaseStopped: every task ended, at least one of them Stopped, before
	// any rule fired — the user (or an operator) stopped the job. Never
	// retried.
	PhaseStopped Phase = "stopped"
)

// Done reports whether p is a final phase.
func (p Phase) Done() bool { return p != PhaseRunning && p != "" }

// Verdict is the state of one job attempt.
type Verdict struct {
	Phase Phase `json:"phase"`
	// ExitCode is the job's exit code: 0 when succeeded; when failed the raw
	// exit code of the triggering task (what the user's process returned,
	// so they can debug; the code the platform would have reported, when it
	// differs, is in Reason); see README.md for the codes without a trigger.
	ExitCode int `json:"exitCode"`
	// Reason is human text, in the platform's words where it has them.
	Reason string `json:"reason"`
	// Trigger is the task whose end decided the verdict (nil when running,
	// or when no single task decided it: deadline).
	Trigger *TaskRef `json:"trigger,omitempty"`
	// Stop lists tasks not yet in a terminal state that must be stopped now
	// (never started ones included: do not start them), in role order then
	// index. Drivers report them Stopped, not Failed, once they end.
	Stop []TaskRef `json:"stop,omitempty"`
	// Keep lists tasks not yet terminal that the platform would have left
	// running after the verdict (Kubeflow cleanPodPolicy None). The job is
	// over all the same; a driver that must end (local, Slurm) stops them
	// when it exits, one that can leave them (Nomad) may.
	Keep []TaskRef `json:"keep,omitempty"`
	// PolicyAction is the Volcano policy action that ends the attempt and
	// asks for more (RestartJob: JobRetry runs the job again); "" otherwise.
	PolicyAction string `json:"policyAction,omitempty"`
}

// RetryDecision says whether to run something again.
type RetryDecision struct {
	Retry bool `json:"retry"`
	// Reason is human text naming the rule applied.
	Reason string `json:"reason"`
	// Counted reports whether this retry counts against the limit (false
	// for PAI transient failures, which are retried without counting).
	// Callers add 1 to their retriesSoFar/restartsSoFar only when set.
	Counted bool `json:"counted,omitempty"`
}

// ExitClass is OpenPAI's classification of an exit code (spec/pai.md §4.2).
type ExitClass string

const (
	Transient ExitClass = "transient" // always retried, not counted
	Permanent ExitClass = "permanent" // never retried
	Unknown   ExitClass = "unknown"   // retried while the count allows
)

// PAI eras for exit-code tables.
const (
	EraK8s  = "k8s"  // k8s-job-exit-spec.yaml (v2 jobs)
	EraYARN = "yarn" // job-exit-spec.yaml of v0.14 (v1 JSON jobs)
)
