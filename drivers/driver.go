package drivers

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// Driver runs translated jobs on one target.
type Driver interface {
	// Name is the target name used with -to (local, nomad, slurm, ...).
	Name() string
	// Render returns exactly what Submit would send, with no side effects.
	Render(ctx context.Context, p *translate.Plan) (*Artifact, error)
	// Submit starts the job and returns a handle that identifies it later,
	// possibly from another process (Nomad job ID, Slurm job ID).
	Submit(ctx context.Context, p *translate.Plan) (Handle, error)
	// Watch streams per-task events until the job ends (the last event has
	// Final set) or ctx is cancelled. The channel is closed afterwards.
	Watch(ctx context.Context, h Handle) (<-chan Event, error)
	// Stop stops every task of the job.
	Stop(ctx context.Context, h Handle) error
	// Logs returns one task's output (or the whole job's, with Task nil).
	Logs(ctx context.Context, h Handle, opts LogOptions) (io.ReadCloser, error)
}

// Artifact is a rendered job: the main file first, then any companions
// (e.g. a secrets file written 0600 next to an sbatch script).
type Artifact struct {
	// MediaType of Files[0]: "application/hcl", "application/json",
	// "text/x-shellscript", "text/plain".
	MediaType string
	Files     []File
}

// File is one rendered file.
type File struct {
	Name string
	Mode uint32 // permission bits; 0 means 0644
	Data []byte
}

// Handle identifies a submitted job.
type Handle struct {
	Driver string            `json:"driver"`
	ID     string            `json:"id"`
	Meta   map[string]string `json:"meta,omitempty"`
}

// Event is one observation of a running job.
type Event struct {
	Time time.Time `json:"time"`
	// Attempt is the job attempt (0 = first run; whole-job retries add
	// 1). Its JSON counts from 1, as everything jobshift shows (jsonAttempt).
	Attempt int `json:"attempt"`
	// Task is set for task events, nil for job events.
	Task     *completion.TaskRef `json:"task,omitempty"`
	State    completion.State    `json:"state,omitempty"`
	ExitCode int                 `json:"exitCode,omitempty"`
	Message  string              `json:"message,omitempty"`
	// Final is set on the last event: the job's outcome.
	Final *Result `json:"final,omitempty"`
}

// Result is how a job ended.
type Result struct {
	Phase    completion.Phase `json:"phase"`
	ExitCode int              `json:"exitCode"`
	Reason   string           `json:"reason"`
	Attempts int              `json:"attempts"`
}

// LogOptions selects log output.
type LogOptions struct {
	Task   *completion.TaskRef
	Stderr bool
	Follow bool
}

// MarshalJSON writes the attempt counted from 1 (jsonAttempt).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	e.Attempt = jsonAttempt(e.Attempt)
	return json.Marshal(plain(e))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	if err := json.Unmarshal(b, (*plain)(e)); err != nil {
		return err
	}
	e.Attempt = goAttempt(e.Attempt)
	return nil
}

// jsonAttempt is attempt a (0 = the first) as JSON says it: counted from
// 1, as the messages, `status` and the run directories' names count. The
// Go fields, the completion engine and the targets' own records count
// from 0.
func jsonAttempt(a int) int { return a + 1 }

// goAttempt is jsonAttempt's inverse (0 or less reads as the first).
func goAttempt(j int) int { return max(j-1, 0) }
