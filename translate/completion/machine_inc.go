package completion

import (
	"container/heap"
	"slices"
	"sort"
	"time"
)

// The machine's incremental bookkeeping. Decide replays every ended task
// each time it is called, which is right for a caller holding a snapshot
// (status, the Nomad controller) but makes a machine that judged after
// each of n ends pay O(n² log n) for an attempt. The machine therefore
// keeps Decide's replay state between events and replays only the new
// ends, with the same rules (the rules interface works on one end at a
// time already). The result is Decide's, because Decide's replay of the
// tasks after an event is the replay before it followed by the new ends,
// as long as the new ends come later in Seq order and no replayed end is
// undone. When either is not so (a driver's Seq out of order, a task seen
// Running again after its end), the replay is rebuilt from the tasks, as
// Decide would build it: correct first, fast in the common case.

// replay is Decide's replay state of the current attempt.
type replay struct {
	a    *attempt // nil: not started, or to be rebuilt
	r    rules
	last int64 // Seq of the last end replayed
	lidx int   // its position in Machine.order (the tie-break)
}

// dirty drops the replay; the next judge rebuilds it from the tasks.
func (p *replay) dirty() { p.a = nil }

// rebuild replays every ended task, as Decide does; the verdict is
// Decide's.
func (m *Machine) rebuild() Verdict {
	a := newAttempt(m.job, m.Tasks())
	m.rp = replay{a: a, r: rulesFor(m.job)}
	for _, s := range a.steps() {
		if s.fire {
			if d, ok := a.step(m.rp.r, s); ok {
				return a.finish(d)
			}
			continue
		}
		if v, ok := m.replayOne(m.tasks[s.ref]); ok {
			return v
		}
	}
	return Verdict{Phase: PhaseRunning}
}

// replayOne replays the end of t; ok when a rule decided.
func (m *Machine) replayOne(t *mtask) (Verdict, bool) {
	a := m.rp.a
	a.tasks[t.TaskRef] = t.Task
	m.rp.last, m.rp.lidx = t.Seq, t.idx
	if d, ok := a.step(m.rp.r, replayStep{ref: t.TaskRef}); ok {
		return a.finish(d), true
	}
	if secs, ok := a.heldTimeout(t.TaskRef); ok && t.fireAt.IsZero() {
		t.fireAt = t.endedAt.Add(time.Duration(secs * float64(time.Second)))
		m.held = append(m.held, t)
	}
	return Verdict{}, false
}

// verdictAfter is Decide(job, Tasks()) after the ends in ended (the tasks
// that ended in the last snapshot, in any order; a task that ended twice
// in it made the replay dirty, one restarted since is not terminal and
// not an end).
func (m *Machine) verdictAfter(ended []*mtask) Verdict {
	ended = slices.DeleteFunc(ended, func(t *mtask) bool { return !t.State.Terminal() })
	sort.Slice(ended, func(i, j int) bool {
		if ended[i].Seq != ended[j].Seq {
			return ended[i].Seq < ended[j].Seq
		}
		return ended[i].idx < ended[j].idx
	})
	if m.rp.a == nil || len(ended) > 0 && !m.after(ended[0]) {
		return m.rebuild()
	}
	for _, t := range ended {
		if v, ok := m.replayOne(t); ok {
			return v
		}
	}
	return Verdict{Phase: PhaseRunning}
}

// after: t's end comes after the last one replayed in Decide's order.
func (m *Machine) after(t *mtask) bool {
	return t.Seq > m.rp.last || t.Seq == m.rp.last && t.idx > m.rp.lidx
}

// tally counts, over the tasks, what judge and Tick ask about all of them.
type tally struct {
	seen int // tasks the driver reported
	// inside: seen tasks that are not Stopped from outside (Stopped
	// without the machine asking); stoppedOutside is seen > 0, inside 0.
	inside int
}

// weigh is t's share of the tally.
func weigh(t *mtask) tally {
	if !t.seen {
		return tally{}
	}
	if t.State != Stopped || t.stopping {
		return tally{seen: 1, inside: 1}
	}
	return tally{seen: 1}
}

// retally updates the tally after t changed from before (weigh(t) taken
// before the change).
func (m *Machine) retally(t *mtask, before tally) {
	after := weigh(t)
	m.tl.seen += after.seen - before.seen
	m.tl.inside += after.inside - before.inside
}

// dueHeap holds the tasks waiting to restart, earliest first. An entry is
// stale once its task's due changed (restarted, stopped): it is dropped
// when it comes to the top.
type dueHeap []dueEntry

type dueEntry struct {
	at time.Time
	t  *mtask
}

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// wait puts t, due at t.due, on the heap.
func (m *Machine) wait(t *mtask) { heap.Push(&m.due, dueEntry{at: t.due, t: t}) }

// nextDue is the earliest live entry (stale ones are dropped); ok false
// when none.
func (m *Machine) nextDue() (dueEntry, bool) {
	for len(m.due) > 0 {
		e := m.due[0]
		if !e.t.due.IsZero() && e.t.due.Equal(e.at) {
			return e, true
		}
		heap.Pop(&m.due)
	}
	return dueEntry{}, false
}

// takeDue removes and returns, in role order then index, the tasks due by
// now.
func (m *Machine) takeDue(now time.Time) []*mtask {
	var out []*mtask
	for {
		e, ok := m.nextDue()
		if !ok || now.Before(e.at) {
			break
		}
		heap.Pop(&m.due)
		e.t.due = time.Time{} // a second entry of the same wait is stale now
		out = append(out, e.t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].idx < out[j].idx })
	return out
}
