package local

import (
	"fmt"
	"strings"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

// onExit reports one process exit to the machine.
func (at *attempt) onExit(ex exit) {
	r := at.r
	if s := at.psOf[ex.p]; s != nil {
		s.psEnded = true
		how := fmt.Sprintf("exited %d by itself; it decides nothing and is not restarted", ex.code)
		if ex.p.wasStopped() {
			how = fmt.Sprintf("stopped (exit %d)", ex.code)
		}
		r.emit(drivers.Event{Attempt: at.a, Message: fmt.Sprintf("%s %s", s.spec.PS.name(), how)})
		return
	}
	s := at.byProc[ex.p]
	if s == nil || s.p != ex.p {
		return // a process of an earlier run of the task
	}
	st := completion.Failed
	switch {
	case ex.p.wasStopped():
		st = completion.Stopped
	case ex.code == 0:
		st = completion.Succeeded
	}
	// The event reporting this exit carries the instant the machine saw,
	// which its back-off counts from: a reader of the events measures the
	// wait the machine applied, not the delay before the event was sent.
	s.code, s.ended, s.endedAt = ex.code, st, time.Now()
	acts := at.m.Observe(completion.TaskEvent{TaskRef: s.ref, State: st, ExitCode: ex.code, Time: s.endedAt})
	if len(acts) > 0 && (acts[0].Kind == completion.ActRestart || acts[0].Kind == completion.ActBackoff) {
		at.do(acts) // restarted in place: the task has not ended
		return
	}
	s.state = st
	msg := ""
	if ex.err != nil {
		msg = ex.err.Error()
	}
	ref := s.ref
	r.emit(drivers.Event{Attempt: at.a, Task: &ref, State: st, ExitCode: ex.code, Message: msg, Time: s.endedAt})
	at.do(acts)
}

// do executes the machine's actions.
func (at *attempt) do(acts []completion.Action) {
	r := at.r
	for _, act := range acts {
		switch act.Kind {
		case completion.ActRestart:
			s := at.byRef[act.Tasks[0]]
			if !s.waiting {
				s.starts++
				at.taskEvent(s, fmt.Sprintf("exited %d; restarting in place (%s)", s.code, act.Reason))
			}
			at.launch(s)
		case completion.ActBackoff:
			s := at.byRef[act.Tasks[0]]
			s.starts++
			s.waiting = true
			at.taskEvent(s, fmt.Sprintf("exited %d; restarting in place after a back-off of %s, as the kubelet's CrashLoopBackOff (%s)", s.code, act.Wait, act.Reason))
			// Not terminal while it waits, as a pod in CrashLoopBackOff.
			s.state = completion.Running
		case completion.ActStop:
			at.stop(act.Tasks, r.d.opts.Grace)
		case completion.ActKillRestart:
			// a Volcano RestartTask's siblings: stopped as a stop does,
			// their exits answered by the machine with their restarts
			names := make([]string, len(act.Tasks))
			for i, ref := range act.Tasks {
				names[i] = refString(ref)
			}
			r.emit(drivers.Event{Attempt: at.a, Message: fmt.Sprintf("restarting %s in place: %s (SIGTERM, then SIGKILL after %s)",
				strings.Join(names, ", "), act.Reason, r.d.opts.Grace)})
			at.stop(act.Tasks, r.d.opts.Grace)
		case completion.ActVerdict:
			v := act.Verdict
			r.emit(drivers.Event{Attempt: at.a, Message: fmt.Sprintf("attempt %d %s: %s", at.a+1, v.Phase, v.Reason)})
			// The local driver must end: the parameter servers stop too.
			at.stopPS(r.d.opts.Grace)
		case completion.ActEnd, completion.ActRetry:
			a := act
			at.end = &a
		}
	}
}

// taskEvent reports the end of a run of s that is followed by a restart.
func (at *attempt) taskEvent(s *slot, msg string) {
	ref := s.ref
	at.r.emit(drivers.Event{Attempt: at.a, Task: &ref, State: s.ended, ExitCode: s.code, Message: msg, Time: s.endedAt})
}

// stop stops the tasks of refs: SIGTERM, SIGKILL after grace; a task waiting
// for its restart is stopped at once (nothing runs), with the code of its
// last run.
func (at *attempt) stop(refs []completion.TaskRef, grace time.Duration) {
	for _, ref := range refs {
		s := at.byRef[ref]
		switch {
		case s == nil:
		case s.p == nil && s.state == completion.Pending:
			at.stopWaiting(s)
		case s.waiting:
			s.waiting, s.state = false, completion.Stopped
			r := s.ref
			at.r.emit(drivers.Event{Attempt: at.a, Task: &r, State: s.state, ExitCode: s.code, Message: "stopped while waiting to restart"})
		case !s.state.Terminal():
			s.p.stop(grace)
		}
	}
}

// kill sends SIGKILL to everything still running (a second stop request).
func (at *attempt) kill() {
	for _, s := range at.slots {
		if s.p == nil && s.state == completion.Pending {
			at.stopWaiting(s)
		} else if !s.state.Terminal() && !s.waiting {
			s.p.stop(0)
		}
	}
	at.stopPS(0)
}

// stopPS stops the parameter servers: they never end by themselves; like a
// PS role's tasks they are stopped once the verdict is in (or on Stop or
// deadline).
func (at *attempt) stopPS(grace time.Duration) {
	for _, s := range at.slots {
		if s.ps != nil && !s.psEnded {
			s.ps.stop(grace)
		}
	}
}

// allEnded: every process of the attempt is gone.
func (at *attempt) allEnded() bool {
	for _, s := range at.slots {
		if !s.state.Terminal() || s.ps != nil && !s.psEnded {
			return false
		}
	}
	return true
}
