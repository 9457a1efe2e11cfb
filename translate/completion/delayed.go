package completion

import (
	"slices"
	"sort"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// Delayed policy actions (Volcano): a policy with a timeout does not act
// when its event comes; the controller executes the action once the
// timeout ran out (volcano-sh/volcano @v1.16.0-alpha.1
// pkg/controllers/job/job_controller.go processNextReq: a delayAct with a
// delay goes to AddDelayActionForJob and the request ends there, without
// the job's sync). Meanwhile other events sync and act as usual; when one
// of them ends the job first, the late action meets a finished state that
// ignores it (state/finished.go Execute). A pod seen Running again cancels
// its PodFailed action (CleanPodDelayActionsIfNeed): here its end is no
// longer terminal, so the replay no longer holds it.

// heldAct is an end whose action waits.
type heldAct struct {
	ref TaskRef
	ev  string
	p   jobs.VolcanoPolicy
}

// replayStep is one entry of the replay: a task's end, or the firing of the
// action its end held.
type replayStep struct {
	ref  TaskRef
	fire bool
}

// steps merges the ends (endOrder) with the firings of held actions
// (Task.Fired) in Seq order; an end and a firing with the same number:
// the end first.
func (a *attempt) steps() []replayStep {
	ends := a.endOrder()
	var fires []TaskRef
	for _, ref := range ends {
		if a.tasks[ref].Fired > 0 {
			fires = append(fires, ref)
		}
	}
	if len(fires) == 0 {
		out := make([]replayStep, len(ends))
		for i, ref := range ends {
			out[i] = replayStep{ref: ref}
		}
		return out
	}
	sort.SliceStable(fires, func(i, j int) bool { return a.tasks[fires[i]].Fired < a.tasks[fires[j]].Fired })
	out := make([]replayStep, 0, len(ends)+len(fires))
	for len(ends) > 0 || len(fires) > 0 {
		if len(fires) == 0 || len(ends) > 0 && a.tasks[ends[0]].Seq <= a.tasks[fires[0]].Fired {
			out, ends = append(out, replayStep{ref: ends[0]}), ends[1:]
		} else {
			out, fires = append(out, replayStep{ref: fires[0], fire: true}), fires[1:]
		}
	}
	return out
}

// step replays one entry: an end runs the rules (onEnd, then, once every
// task ended, onAllEnded); a firing executes the action its end held, if
// nothing decided before it.
//
// An end held while every other task has ended already gets no sync
// (processNextReq returns before it), and no event can come any more
// before the held actions fire: the first held one (in end order) is the
// verdict then. The outcome is Volcano's; only its moment comes earlier,
// by the rest of the timeout.
func (a *attempt) step(r rules, s replayStep) (decided, bool) {
	if s.fire {
		return a.fire(s.ref)
	}
	a.end(s.ref)
	a.heldLast = false
	t := a.tasks[s.ref]
	if d, ok := r.onEnd(a, t); ok {
		return d, true
	}
	if !a.allEnded() {
		return decided{}, false
	}
	if a.heldLast && len(a.held) > 0 {
		return a.fire(a.held[0].ref)
	}
	return r.onAllEnded(a, t), true
}

// hold records that t's end matched p and its action waits.
func (a *attempt) hold(t Task, ev string, p jobs.VolcanoPolicy) {
	a.held = append(a.held, heldAct{ref: t.TaskRef, ev: ev, p: p})
	a.heldLast = true
}

// fire executes the action held by ref's end.
func (a *attempt) fire(ref TaskRef) (decided, bool) {
	for i, h := range a.held {
		if h.ref == ref {
			a.held = append(a.held[:i:i], a.held[i+1:]...)
			return volcanoAct(a, a.tasks[ref], h.ev, h.p)
		}
	}
	return decided{}, false
}

// heldTimeout is how long the action held by ref's end waits (ok false
// when its end holds none).
func (a *attempt) heldTimeout(ref TaskRef) (float64, bool) {
	for _, h := range a.held {
		if h.ref == ref {
			return h.p.TimeoutSeconds, true
		}
	}
	return 0, false
}

// liveHeld drops from m.held the tasks whose held action is gone (the task
// ran again, or the action fired) and returns the rest.
func (m *Machine) liveHeld() []*mtask {
	m.held = slices.DeleteFunc(m.held, func(t *mtask) bool {
		return t.fireAt.IsZero() || t.Fired > 0 || !t.State.Terminal()
	})
	return m.held
}

// fireHeld executes the held actions due by now, earliest first (each
// its own AddDelayActionForJob goroutine upstream): the first that
// decides is the verdict. A firing takes the next number after every end
// seen, so Decide on Tasks() replays it where it happened.
func (m *Machine) fireHeld(now time.Time) (Verdict, bool) {
	due := slices.Clone(m.liveHeld())
	due = slices.DeleteFunc(due, func(t *mtask) bool { return now.Before(t.fireAt) })
	sort.SliceStable(due, func(i, j int) bool { return due[i].fireAt.Before(due[j].fireAt) })
	for _, t := range due {
		last := m.seq
		for _, o := range m.tasks {
			last = max(last, o.Seq, o.Fired)
		}
		m.seq = last + 1
		t.Fired = m.seq
		m.rp.dirty()
		if v := m.rebuild(); v.Phase.Done() {
			return v, true
		}
	}
	return Verdict{}, false
}
