package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// Inspect implements drivers.Inspector: Slurm's state of the job (scontrol,
// sacct once scontrol forgot it) and each task's as the batch script
// recorded it in the state directory. It only reads.
func (d *Driver) Inspect(ctx context.Context, h drivers.Handle) (*drivers.Status, error) {
	js := queryJob(ctx, h.ID)
	if !js.Found {
		return nil, fmt.Errorf("slurm job %s: neither scontrol nor sacct knows it: %w", h.ID, drivers.ErrNotFound)
	}
	h = resolveHandle(ctx, h)
	state, roles, counts, err := handleInfo(h)
	if err != nil {
		return nil, err
	}
	attempt := js.Restarts
	adir, a := readOwnAttempt(state, h.Meta[metaToken], attempt, roles, counts)
	st := &drivers.Status{Handle: drivers.Handle{Driver: Name, ID: h.ID}.String(), Name: js.Name, User: js.User,
		Attempt: attempt, Phase: completion.PhaseRunning, Tasks: []drivers.TaskStatus{}}
	for k, name := range roles {
		for i := 0; i < counts[k]; i++ {
			ref := jobs.TaskRef{Role: name, Index: i}
			t := drivers.TaskStatus{Role: name, Index: i, State: completion.Pending}
			if a.started[ref] {
				t.State = completion.Running
			}
			if rc, ok := a.rc[ref]; ok {
				t.State, t.ExitCode = completion.Succeeded, rc
				if rc != 0 {
					t.State = completion.Failed
				}
				if a.stopped[k] && a.verdict != nil && !endedBeforeVerdict(adir, k, i) {
					t.State = completion.Stopped
				}
			} else if a.verdict != nil && a.stopped[k] {
				t.State = completion.Stopped
			}
			st.Tasks = append(st.Tasks, t)
		}
	}
	// Slurm's state was read before the task files: a job that started in
	// between reads PENDING with tasks already running; read it again.
	if js.State == "PENDING" && len(a.started) > 0 {
		if again := queryJob(ctx, h.ID); again.Found {
			js.State, js.Reason = again.State, again.Reason
		}
	}
	switch {
	case terminalStates[js.State]:
		res := finalResult(js, a)
		st.Phase, st.ExitCode, st.Reason = res.Phase, res.ExitCode, res.Reason
	case js.State == "PENDING":
		st.Phase, st.Reason = drivers.PhasePending, "slurm: PENDING ("+js.Reason+")"
	default:
		st.Reason = "slurm: " + js.State
	}
	return st, nil
}

// List implements drivers.Lister: the user's jobs Slurm still shows
// (squeue) whose jobshift state directory is found.
func (d *Driver) List(ctx context.Context) ([]drivers.Status, error) {
	user := os.Getenv("USER")
	args := []string{"-h", "-o", "%i"}
	if user != "" {
		args = append(args, "-u", user)
	}
	out, err := exec.CommandContext(ctx, "squeue", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("squeue: %s: %w", commandError(err), drivers.ErrUnavailable)
	}
	seen := map[string]bool{}
	var list []drivers.Status
	for _, id := range strings.Fields(string(out)) {
		id, _, _ = strings.Cut(id, "+") // het components: 42+0, 42+1
		if seen[id] {
			continue
		}
		seen[id] = true
		st, err := d.Inspect(ctx, drivers.Handle{Driver: Name, ID: id})
		if err != nil {
			continue // not a jobshift job, or its state is not visible here
		}
		list = append(list, *st)
	}
	return list, nil
}

// commandError is what a failed Slurm command said (its stderr, e.g.
// squeue's "Unable to contact slurm controller (connect failure)"), or
// the error itself when it said nothing.
func commandError(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if msg := strings.TrimSpace(string(ee.Stderr)); msg != "" {
			return strings.ReplaceAll(msg, "\n", "; ")
		}
	}
	return err.Error()
}
