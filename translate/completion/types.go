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
type Task struct {
	TaskRef
	State    State `json:"state"`
	ExitCode int   `json:"exitCode"`
	// Restarts is how many times this task was restarted in place (task-level
	// retries: PAI taskRetryCount without gang, Kubeflow OnFailure/ExitCode).
	Restarts int `json:"restarts,omitempty"`
}

// Phase is a job attempt's state.
type Phase string

const (
	PhaseRunning   Phase = "running"
	PhaseSucceeded Phase = "succeeded"
	PhaseFailed    Phase = "failed"
)
