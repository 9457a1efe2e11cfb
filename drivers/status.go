package drivers

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// Handles as users type them: TARGET:ID (nomad:alice~mesh, slurm:4242,
// local:/home/a/.jobshift/runs/mesh-20260101T...), so status, logs and stop
// find a job without being told its target again. A Nomad job outside the
// default namespace is nomad:NAMESPACE/ID (Nomad namespaces cannot hold a
// "/", jobshift's job IDs never do).

// String is the handle as it is printed and typed.
func (h Handle) String() string {
	id := h.ID
	if ns := h.Meta[MetaNamespace]; ns != "" && ns != "default" && namespaced(h.Driver) {
		id = ns + "/" + id
	}
	return h.Driver + ":" + id
}

// MetaNamespace is the Handle.Meta key of a Nomad job's namespace.
const MetaNamespace = "namespace"

// namespaced reports whether a target's handles may carry a namespace.
func namespaced(target string) bool { return target == "nomad" || target == "nomad-json" }

// targetName is what a target (driver) name may look like; anything else
// before a ":" is part of an ID (a local run directory may hold ":").
var targetName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// ParseHandle reads a handle typed by a user. s names its target
// (TARGET:ID), or is a bare ID of target def; a handle naming another
// target than an explicit def is an error (-to slurm nomad:x).
func ParseHandle(s, def string, explicit bool) (Handle, error) {
	target, id, ok := strings.Cut(s, ":")
	if !ok || !targetName.MatchString(target) {
		if def == "" {
			return Handle{}, fmt.Errorf("job %q does not name its target: write TARGET:ID (e.g. nomad:%s) or give -to", s, s)
		}
		target, id = def, s
	} else if explicit && def != "" && def != target && !(namespaced(def) && namespaced(target)) {
		return Handle{}, fmt.Errorf("job %q is a %s job, but -to says %s", s, target, def)
	}
	if id == "" {
		return Handle{}, fmt.Errorf("job %q has an empty ID", s)
	}
	h := Handle{Driver: target, ID: id}
	if ns, rest, ok := strings.Cut(id, "/"); ok && namespaced(target) && ns != "" && rest != "" {
		h.ID, h.Meta = rest, map[string]string{MetaNamespace: ns}
	}
	return h, nil
}

// Status is a snapshot of a submitted job, as `jobshift status` shows it.
type Status struct {
	Handle string `json:"handle"`
	// Name is the job's name in its file; User who submitted it.
	Name string `json:"name,omitempty"`
	User string `json:"user,omitempty"`
	// Phase: pending (nothing started yet), running, or the verdict
	// (succeeded, failed, stopped) once jobshift recorded one.
	Phase    completion.Phase `json:"phase"`
	ExitCode int              `json:"exitCode"`
	Reason   string           `json:"reason,omitempty"`
	// Attempt is the current attempt (0 = first; its JSON counts from 1:
	// jsonAttempt).
	Attempt   int          `json:"attempt"`
	Submitted time.Time    `json:"submitted,omitzero"`
	Tasks     []TaskStatus `json:"tasks"`
}

// PhasePending: submitted, no task started yet.
const PhasePending completion.Phase = "pending"

// Ended reports whether the job has a verdict (pending and running have
// none; completion.Phase.Done does not know pending).
func (s *Status) Ended() bool { return s.Phase != PhasePending && s.Phase.Done() }

// TaskStatus is one task in a Status.
type TaskStatus struct {
	Role     string           `json:"role"`
	Index    int              `json:"index"`
	State    completion.State `json:"state"`
	ExitCode int              `json:"exitCode"`
	Message  string           `json:"message,omitempty"`
}

// Inspector is implemented by drivers that can show a job as it is now,
// from any process, without following or changing it.
type Inspector interface {
	Inspect(ctx context.Context, h Handle) (*Status, error)
}

// Lister is implemented by drivers that can list the jobs jobshift
// submitted to their target (those the caller may see).
type Lister interface {
	List(ctx context.Context) ([]Status, error)
}

// Planner is implemented by drivers that can show what a submit would
// change on the target (Nomad's plan diff) without submitting.
type Planner interface {
	PlanDiff(ctx context.Context, p *translate.Plan) (string, error)
}

// MarshalJSON writes the attempt counted from 1 (jsonAttempt).
func (s Status) MarshalJSON() ([]byte, error) {
	type plain Status
	s.Attempt = jsonAttempt(s.Attempt)
	return json.Marshal(plain(s))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Status) UnmarshalJSON(b []byte) error {
	type plain Status
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	s.Attempt = goAttempt(s.Attempt)
	return nil
}
