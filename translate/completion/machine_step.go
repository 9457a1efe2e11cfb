package completion

import (
	"fmt"
	"github.com/jobshift/jobshift/jobs"
	"time"
)

// Observe takes one task event and returns what to do.
func (m *Machine) Observe(e TaskEvent) []Action { return m.ObserveAll([]TaskEvent{e}) }

// ObserveAll takes the events of one snapshot (a target that polls sees
// several changes at once) and judges once, after all of them: judging
// after each would see a partial picture (the first tasks of a snapshot
// all stopped, say, before the failure that came first).
func (m *Machine) ObserveAll(es []TaskEvent) []Action {
	var acts []Action
	var ended []*mtask
	for _, e := range es {
		a, t := m.record(e)
		acts = append(acts, a...)
		if t != nil {
			ended = append(ended, t)
		}
	}
	if len(ended) > 0 {
		acts = append(acts, m.judge(ended)...)
	}
	return acts
}

// record takes one event; the task when it ended (and is not restarted).
func (m *Machine) record(e TaskEvent) ([]Action, *mtask) {
	t := m.tasks[e.TaskRef]
	if t == nil || m.over {
		return nil, nil
	}
	defer m.retally(t, weigh(t))
	t.seen = true
	if !e.State.Terminal() {
		if e.State == Running {
			t.started = e.Time // a (re)start: the back-off measures runs from it
		}
		if e.State == Running || !t.State.Terminal() {
			if t.State.Terminal() {
				m.rp.dirty() // an end the replay counted is undone
			}
			t.State, t.due = e.State, time.Time{}
		}
		return nil, nil
	}
	if t.recycle {
		t.recycle = false
		if !t.stopping && !m.ending() {
			// killed because its task restarts: no end of the pod's
			// own, nothing for the rules (machine_vtask.go)
			return m.restartSibling(t, e), nil
		}
	}
	if t.State.Terminal() {
		m.rp.dirty() // a second end of a task: its first may be replayed
	}
	if e.State != Stopped && !m.ending() && m.cfg.RestartInPlace {
		if acts, ok := m.restart(t, e); ok {
			return acts, nil
		}
	}
	t.State, t.ExitCode, t.due = e.State, e.ExitCode, time.Time{}
	t.endedAt, t.fireAt, t.Fired = e.Time, time.Time{}, 0
	if t.stopping {
		// Asked to stop: however it ended, neither a success nor a
		// failure of the task (Verdict.Stop).
		t.State = Stopped
	}
	if e.Seq != 0 {
		t.Seq = e.Seq
	} else {
		m.seq++
		t.Seq = m.seq
	}
	return nil, t
}

// restart offers task t, which just ended (e), an in-place restart; ok
// when it gets one (now, or after the back-off).
func (m *Machine) restart(t *mtask, e TaskEvent) ([]Action, bool) {
	// RestartsSoFar, from the running count (O(1)): TF and PyTorch
	// count every task's restarts, Volcano those of the same counter
	// (VolcanoRestartCounter: the policies' count in the job's
	// RetryCount), the others the task's own.
	so, counter := t.Restarts, ""
	switch {
	case m.pooled:
		so = m.restarts
	case m.volcano:
		counter = VolcanoRestartCounter(m.job.Role(t.Role), e.ExitCode)
		so = m.vcRestarts[counter]
		if counter == "" {
			so = m.retriesSoFar()
		}
	}
	dec := TaskRestartDecision(m.job, t.Role, e.ExitCode, so)
	if !dec.Retry {
		return nil, false
	}
	if dec.Counted {
		t.Restarts++
		m.restarts++
		m.countVolcano(counter)
	}
	var wait time.Duration
	wait, t.streak = m.cfg.Backoff.Next(t.streak, e.Time.Sub(t.started))
	if d := VolcanoRestartDelay(m.job, t.Role, e.ExitCode); d > wait {
		wait = d // a RestartPod/RestartTask policy's timeout (volcano_delay.go)
	}
	// Not terminal while it restarts or waits, as a pod in CrashLoopBackOff.
	t.State, t.ExitCode = Running, e.ExitCode
	ref := []TaskRef{t.TaskRef}
	// a RestartTask restarts every pod of the task: its siblings restart
	// with this task's restart (machine_vtask.go)
	vtask := m.volcano && counter == "" && dec.Counted && VolcanoRestartTarget(m.job, t.Role, e.ExitCode) == ActionRestartTask
	if wait == 0 {
		acts := []Action{{Kind: ActRestart, Tasks: ref, ExitCode: e.ExitCode, Reason: dec.Reason}}
		if vtask {
			acts = append(acts, m.restartTask(t, nil)...)
		}
		return acts, true
	}
	t.due, t.vtask = e.Time.Add(wait), vtask
	m.wait(t)
	return []Action{{Kind: ActBackoff, Tasks: ref, ExitCode: e.ExitCode, Wait: wait, Reason: dec.Reason}}, true
}

// countVolcano adds a Counted in-place restart of a Volcano task to its
// counter: the policies' to the job's RetryCount, the kubelet's to the
// role's.
func (m *Machine) countVolcano(counter string) {
	switch {
	case !m.volcano:
	case counter == "":
		m.vcPolicy++
	default:
		m.vcRestarts[counter]++
	}
}

// retriesSoFar is what JobRetry and a Volcano policy's restart count
// against: the Counted retries of the whole job, and for Volcano the
// policies' in-place restarts of every attempt too (VolcanoRetryCount).
func (m *Machine) retriesSoFar() int {
	if m.volcano {
		return VolcanoRetryCount(m.tries, m.vcPolicy)
	}
	return m.tries
}

// judge runs the rules after the tasks ended ended (Decide's verdict on
// the tasks now, replaying only the new ends: machine_inc.go).
func (m *Machine) judge(ended []*mtask) []Action {
	if m.ending() {
		return nil // the first verdict stands; a stop is judged at Ended
	}
	v := m.verdictAfter(ended)
	switch {
	case v.Phase == PhaseStopped && m.tl.seen > m.tl.inside:
		// Decide's "every task ended, some stopped" with a task stopped
		// that the machine never asked to stop: the stop came from
		// outside, the verdict every judge gives it (UserStopped).
		return m.decide(UserStopped(m.job, m.Tasks()), true)
	case v.Phase.Done():
		return m.decide(v, false)
	case len(v.Stop) > 0:
		return m.stop(v.Stop, "the completion rules stop them")
	case m.stoppedOutside():
		// Every task seen was stopped, none by jobshift's hand: the job
		// was stopped from outside (nomad job stop, scancel).
		return m.decide(UserStopped(m.job, m.Tasks()), true)
	}
	return nil
}

// stoppedOutside: at least one task was seen, every task seen is Stopped,
// and the machine stopped none of them.
func (m *Machine) stoppedOutside() bool { return m.tl.seen > 0 && m.tl.inside == 0 }

// decide records the attempt's verdict and stops every task still running
// (Stop, and Keep too: no target leaves a job half-running).
func (m *Machine) decide(v Verdict, final bool) []Action {
	m.v, m.final = &v, final
	rd := RetryDecision{Reason: "the verdict is final"}
	if !final {
		rd = JobRetry(m.job, v, m.retriesSoFar())
	}
	acts := []Action{{Kind: ActVerdict, Verdict: v, Retry: rd, Final: final, Reason: v.Reason}}
	return append(acts, m.stop(m.order, fmt.Sprintf("%s: %s", v.Phase, v.Reason))...)
}

// stop asks to stop every task of refs not yet terminal; tasks waiting to
// restart are Stopped at once.
func (m *Machine) stop(refs []TaskRef, why string) []Action {
	a := Action{Kind: ActStop, Reason: why}
	for _, ref := range refs {
		t := m.tasks[ref]
		if t == nil || t.State.Terminal() {
			continue
		}
		before := weigh(t)
		t.stopping = true
		a.Tasks = append(a.Tasks, ref)
		if !t.due.IsZero() {
			t.due, t.State = time.Time{}, Stopped
			m.rp.dirty() // an end the replay has not seen
			m.seq++
			t.Seq = m.seq
			a.Cancelled = append(a.Cancelled, ref)
		}
		m.retally(t, before)
	}
	if len(a.Tasks) == 0 {
		return nil
	}
	return []Action{a}
}

// Stop is the user's request to stop the job (jobshift stop, Ctrl-C): every
// task is stopped; the job ends Stopped (UserStopped) unless a verdict was
// already in.
func (m *Machine) Stop() []Action {
	if m.over {
		return nil
	}
	if m.v == nil {
		m.user = true
	}
	return m.stop(m.order, "stopped by the user")
}

// Tick advances the clock to now: the deadline, the gang timeout and due
// restarts.
func (m *Machine) Tick(now time.Time) []Action {
	if m.over {
		return nil
	}
	if dl, ok := Deadline(m.job); ok && !m.dlDone && !now.Before(m.cfg.Start.Add(dl)) {
		return m.deadline()
	}
	if g := m.cfg.GangTimeout; g > 0 && !m.ending() && m.seen() < len(m.order) && now.Sub(m.start) > g {
		v := Verdict{Phase: PhaseFailed, ExitCode: noRuleExitCode, Reason: fmt.Sprintf(
			"gang timeout: only %d of %d tasks were placed within %s (the scheduler places what fits and queues the rest); the job was stopped so its tasks do not hold resources another job waits for",
			m.seen(), len(m.order), g)}
		if KindOf(m.job) == jobs.CompletionVolcano && m.job.Extras.Volcano != nil {
			v = volcanoGang(m.job, v)
		}
		return m.decide(v, false)
	}
	if m.ending() {
		return nil // a stop cancelled every wait
	}
	if v, ok := m.fireHeld(now); ok {
		return m.decide(v, false)
	}
	var acts []Action
	due := m.takeDue(now)
	restarting := make(map[*mtask]bool, len(due))
	for _, t := range due {
		t.due = time.Time{}
		restarting[t] = true
		acts = append(acts, Action{Kind: ActRestart, Tasks: []TaskRef{t.TaskRef}, ExitCode: t.ExitCode, Reason: "back-off over"})
	}
	for _, t := range due {
		if t.vtask {
			t.vtask = false
			acts = append(acts, m.restartTask(t, restarting)...)
		}
	}
	return acts
}

// deadline ends the job: DeadlineExceeded unless a rule had decided
// already; never retried; every task is stopped.
func (m *Machine) deadline() []Action {
	m.dlDone = true
	d := DeadlineVerdict(m.job, m.Tasks())
	var acts []Action
	if m.v == nil || m.user {
		m.v, m.user = &d, false
		acts = append(acts, Action{Kind: ActVerdict, Verdict: d, Final: true, Reason: d.Reason,
			Retry: RetryDecision{Reason: "the deadline ends the job"}})
	}
	m.final = true
	return append(acts, m.stop(m.order, d.Reason)...)
}

func (m *Machine) seen() int { return m.tl.seen }

// Ended: every process of the attempt is gone. The machine runs the job
// again (ActRetry) or ends it (ActEnd); nothing while no verdict is in
// (a task never placed may still come).
func (m *Machine) Ended() []Action {
	if m.over {
		return nil
	}
	if m.user {
		v := UserStopped(m.job, m.Tasks())
		m.v, m.final = &v, true
	}
	if m.v == nil {
		return nil
	}
	m.over = true
	if m.final {
		return []Action{{Kind: ActEnd, Verdict: *m.v, Final: true, Retry: RetryDecision{Reason: "the verdict is final"}}}
	}
	rd := JobRetry(m.job, *m.v, m.retriesSoFar())
	if !rd.Retry {
		return []Action{{Kind: ActEnd, Verdict: *m.v, Retry: rd}}
	}
	if rd.Counted {
		m.tries++
	}
	return []Action{{Kind: ActRetry, Verdict: *m.v, Retry: rd}}
}

// NextTick is when Tick next has something to do (zero: nothing pending).
func (m *Machine) NextTick() time.Time {
	var next time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if m.over {
		return next
	}
	if dl, ok := Deadline(m.job); ok && !m.dlDone {
		at(m.cfg.Start.Add(dl))
	}
	if g := m.cfg.GangTimeout; g > 0 && !m.ending() && m.seen() < len(m.order) {
		at(m.start.Add(g + time.Nanosecond))
	}
	if e, ok := m.nextDue(); ok && !m.ending() {
		at(e.at)
	}
	if !m.ending() {
		for _, t := range m.liveHeld() {
			at(t.fireAt)
		}
	}
	return next
}

// StoppingSet is the tasks the machine asked to stop.
func (m *Machine) StoppingSet() map[TaskRef]bool {
	out := map[TaskRef]bool{}
	for ref, t := range m.tasks {
		if t.stopping {
			out[ref] = true
		}
	}
	return out
}
