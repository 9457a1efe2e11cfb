package example

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// `jobshift status` runs in a process of its own, with a plugin process
// of its own: the plugin process that submitted the job (and watched it)
// may be gone, -detach ends it at once. So a run keeps what a snapshot
// needs in its directory, as files any process can read:
//
//	job.json          name, user, submission time, completion policy, tasks
//	<task>.pid        the task's process (group) id
//	<task>.exit       its exit code, written by the task's own wrapper shell
//	<task>.stopped    stopped by Stop or by a completion rule
//	verdict.json      the verdict, once a Watch decided it
//
// and Inspect reads them. A run no Watch decided is judged by the same
// attempt machine (translate/completion) from the recorded exit codes.

// runInfo is job.json.
type runInfo struct {
	Name      string            `json:"name"`
	User      string            `json:"user,omitempty"`
	Submitted time.Time         `json:"submitted"`
	Policy    completion.Policy `json:"policy"`
	Tasks     []jobs.TaskRef    `json:"tasks"`
}

func taskBase(dir string, ref jobs.TaskRef) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%d", ref.Role, ref.Index))
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", b, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// recordVerdict writes verdict.json (best effort: a snapshot can judge
// the run again from the exit codes).
func (r *run) recordVerdict(res *drivers.Result) {
	_ = writeJSON(filepath.Join(r.dir, "verdict.json"), res)
}

// Inspect is a snapshot of the run in directory h.ID.
func (d *Driver) Inspect(_ context.Context, h drivers.Handle) (*drivers.Status, error) {
	var info runInfo
	b, err := os.ReadFile(filepath.Join(h.ID, "job.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("run %s: %w", h.ID, drivers.ErrNotFound)
	}
	if err == nil {
		err = json.Unmarshal(b, &info)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", h.ID, err)
	}
	st := &drivers.Status{Handle: h.String(), Name: info.Name, User: info.User, Submitted: info.Submitted,
		Phase: completion.PhaseRunning, Tasks: []drivers.TaskStatus{}}
	var evs []completion.TaskEvent
	live := 0
	for _, ref := range info.Tasks {
		ts := taskState(taskBase(h.ID, ref))
		ts.Role, ts.Index = ref.Role, ref.Index
		st.Tasks = append(st.Tasks, ts)
		if ts.State.Terminal() {
			evs = append(evs, completion.TaskEvent{TaskRef: ref, State: ts.State, ExitCode: ts.ExitCode, Time: info.Submitted, Seq: 1})
		} else {
			live++
		}
	}
	var res drivers.Result
	if b, err := os.ReadFile(filepath.Join(h.ID, "verdict.json")); err == nil && json.Unmarshal(b, &res) == nil {
		st.Phase, st.ExitCode, st.Reason = res.Phase, res.ExitCode, res.Reason
		return st, nil
	}
	if live > 0 {
		return st, nil
	}
	m := completion.NewMachine(info.Policy, completion.MachineConfig{Start: info.Submitted})
	for _, a := range append(m.ObserveAll(evs), m.Ended()...) {
		if a.Kind == completion.ActEnd || a.Kind == completion.ActRetry {
			st.Phase, st.ExitCode, st.Reason = a.Verdict.Phase, a.Verdict.ExitCode, a.Verdict.Reason
			break
		}
	}
	return st, nil
}

// taskState reads one task's files (base is <dir>/<role>-<index>).
func taskState(base string) drivers.TaskStatus {
	if b, err := os.ReadFile(base + ".exit"); err == nil {
		code, err := strconv.Atoi(strings.TrimSpace(string(b)))
		switch {
		case err != nil:
			return drivers.TaskStatus{State: completion.Failed, ExitCode: -1, Message: "unreadable exit code file"}
		case fileExists(base + ".stopped"):
			return drivers.TaskStatus{State: completion.Stopped, ExitCode: code}
		case code == 0:
			return drivers.TaskStatus{State: completion.Succeeded}
		}
		return drivers.TaskStatus{State: completion.Failed, ExitCode: code}
	}
	pid := 0
	if b, err := os.ReadFile(base + ".pid"); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid > 0 && syscall.Kill(pid, 0) == nil {
		return drivers.TaskStatus{State: completion.Running}
	}
	if fileExists(base + ".stopped") {
		return drivers.TaskStatus{State: completion.Stopped, ExitCode: 143}
	}
	return drivers.TaskStatus{State: completion.Failed, ExitCode: -1, Message: "ended without recording its exit code (killed?)"}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

var _ drivers.Inspector = (*Driver)(nil)
