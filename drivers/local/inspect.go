package local

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// A local run lives inside the jobshift process that started it; its run
// directory lets other jobshift commands see it: run.json says which job
// and which process, events.jsonl what happened. `jobshift stop local:DIR`
// sends that process SIGTERM, which stops the job as Ctrl-C does.

// runInfoFile names the run's identity file in its run directory.
const runInfoFile = "run.json"

type runInfo struct {
	Name    string    `json:"name"`
	User    string    `json:"user"`
	PID     int       `json:"pid"`
	Start   string    `json:"pidStart"` // /proc/PID/stat start time: tells a reused PID apart
	Started time.Time `json:"started"`
	// AttemptsFrom is what events.jsonl counts attempts from: 1 (the JSON
	// of drivers.Event); absent in run directories written before, whose
	// lines counted from 0.
	AttemptsFrom int `json:"attemptsFrom,omitempty"`
}

func writeRunInfo(dir, name, user string) {
	pid := os.Getpid()
	b, err := json.Marshal(runInfo{Name: name, User: user, PID: pid, Start: procStart(pid), Started: time.Now().UTC(), AttemptsFrom: 1})
	if err == nil {
		_ = os.WriteFile(filepath.Join(dir, runInfoFile), append(b, '\n'), 0o600)
	}
}

// procStart is field 22 of /proc/PID/stat (start time in clock ticks), ""
// when the process does not exist or has ended (a zombie not yet reaped).
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// the command name (field 2) may hold spaces: count after its ")"
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return ""
	}
	return f[19]
}

func readRunInfo(dir string) (runInfo, error) {
	var ri runInfo
	b, err := os.ReadFile(filepath.Join(dir, runInfoFile))
	if err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			return ri, fmt.Errorf("local run %q: %w: no such directory ('jobshift status' lists the local runs of this directory)", dir, drivers.ErrNotFound)
		}
		return ri, fmt.Errorf("local run %q: %w (no %s: not a run directory of this jobshift version)", dir, drivers.ErrNotFound, runInfoFile)
	}
	return ri, json.Unmarshal(b, &ri)
}

// runsDir checks that pid ri.PID is the jobshift process running the run
// in dir before anyone signals it: run.json is this user's own file (the
// run directory could be another user's, naming any process of ours),
// and the process holds the run's event log open (the broker keeps it
// open for the whole run), which no other process does.
func (ri runInfo) runsDir(dir string) error {
	fi, err := os.Lstat(filepath.Join(dir, runInfoFile))
	if err != nil {
		return err
	}
	if st := fi.Sys().(*syscall.Stat_t); !fi.Mode().IsRegular() || int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is not a file of this user's", runInfoFile)
	}
	log, err := filepath.Abs(filepath.Join(dir, claimMarker))
	if err != nil {
		return err
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", ri.PID))
	if err != nil {
		return err
	}
	for _, fd := range fds {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", ri.PID, fd.Name())); err == nil && target == log {
			return nil
		}
	}
	return fmt.Errorf("it does not hold the run's %s open: not the jobshift process of this run", claimMarker)
}

// alive reports whether the run's jobshift process still runs.
func (ri runInfo) alive() bool { return ri.PID > 0 && ri.Start != "" && procStart(ri.PID) == ri.Start }

// Inspect implements drivers.Inspector from the run directory.
func (d *Driver) Inspect(ctx context.Context, h drivers.Handle) (*drivers.Status, error) {
	ri, err := readRunInfo(h.ID)
	if err != nil {
		return nil, err
	}
	st := &drivers.Status{Handle: drivers.Handle{Driver: Name, ID: h.ID}.String(), Name: ri.Name, User: ri.User,
		Submitted: ri.Started, Phase: drivers.PhasePending, Tasks: []drivers.TaskStatus{}}
	f, err := os.Open(filepath.Join(h.ID, claimMarker))
	if err != nil {
		return nil, fmt.Errorf("local run %q: %w", h.ID, err)
	}
	defer f.Close()
	tasks := map[jobs.TaskRef]drivers.TaskStatus{}
	var order []jobs.TaskRef
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e drivers.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a line cut by a crash
		}
		if ri.AttemptsFrom == 0 {
			e.Attempt = oldAttempt(sc.Bytes())
		}
		if e.Attempt > st.Attempt {
			st.Attempt, tasks = e.Attempt, map[jobs.TaskRef]drivers.TaskStatus{}
		}
		if e.Final != nil {
			st.Phase, st.ExitCode, st.Reason = e.Final.Phase, e.Final.ExitCode, e.Final.Reason
		}
		if e.Task == nil || e.State == "" {
			continue
		}
		ref := *e.Task
		if _, ok := tasks[ref]; !ok && !containsRef(order, ref) {
			order = append(order, ref)
		}
		tasks[ref] = drivers.TaskStatus{Role: ref.Role, Index: ref.Index, State: e.State, ExitCode: e.ExitCode, Message: e.Message}
		if st.Phase == drivers.PhasePending && e.State != completion.Pending {
			st.Phase = completion.PhaseRunning
		}
	}
	for _, ref := range order {
		if t, ok := tasks[ref]; ok {
			st.Tasks = append(st.Tasks, t)
		}
	}
	if !st.Ended() && !ri.alive() {
		st.Reason = fmt.Sprintf("the jobshift process that ran it (pid %d) is gone without a verdict; its tasks' supervisors stopped them", ri.PID)
		st.Phase = completion.PhaseStopped
		st.ExitCode = completion.StoppedExitCode
	}
	return st, nil
}

func containsRef(rs []jobs.TaskRef, r jobs.TaskRef) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// List implements drivers.Lister: the runs under ./.jobshift/runs (the
// default run directories of this working directory), newest first.
func (d *Driver) List(ctx context.Context) ([]drivers.Status, error) {
	dirs, _ := filepath.Glob(filepath.Join(d.opts.Dir, ".jobshift", "runs", "*", runInfoFile))
	var out []drivers.Status
	for _, p := range dirs {
		st, err := d.Inspect(ctx, drivers.Handle{Driver: Name, ID: filepath.Dir(p)})
		if err == nil {
			out = append(out, *st)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Submitted.After(out[j].Submitted) })
	return out, nil
}

// stopElsewhere stops a run of another jobshift process: SIGTERM to it
// (its handler stops every task, as Ctrl-C does), then wait for the
// verdict in the event log or the process to end.
func stopElsewhere(ctx context.Context, dir string) error {
	ri, err := readRunInfo(dir)
	if err != nil {
		return err
	}
	if !ri.alive() {
		return nil // over already
	}
	if err := ri.runsDir(dir); err != nil {
		return fmt.Errorf("local run %s: not signalling pid %d: %w", dir, ri.PID, err)
	}
	if err := syscall.Kill(ri.PID, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("local run %s: signalling jobshift (pid %d): %w", dir, ri.PID, err)
	}
	for ri.alive() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// oldAttempt is the attempt of an events.jsonl line of a run directory
// written when the JSON counted attempts from 0.
func oldAttempt(line []byte) int {
	var raw struct {
		Attempt int `json:"attempt"`
	}
	_ = json.Unmarshal(line, &raw)
	return raw.Attempt
}
