package nomad

import (
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// The judgements of a Nomad job, as pure functions of what was observed
// (observe's tasks, end markers applied by withEnds), so that every judge
// reaches a verdict through the attempt machine the same way:
//   - the watcher (run, the controller, watch -enforce) feeds each
//     snapshot's changes to its long-lived machine with advance;
//   - the finishers (poststop task, in-task finisher, the UAI judge) and
//     status judge one snapshot with snapshotVerdict, a fresh machine;
//   - status of a job stopped from outside whose tasks all ended takes
//     stoppedVerdict, the machine's own verdict of a stop (UserStopped).
// A snapshot's verdict is the same through either (judge_test.go).

// snapshotEvents turns observed tasks into the machine's events, split
// into placements (not yet ended) and ends. now stamps them (zero for a
// judge that owns no clock).
func snapshotEvents(obs []observed, now time.Time) (placed, ended []completion.TaskEvent) {
	for _, o := range obs {
		e := completion.TaskEvent{TaskRef: o.TaskRef, State: o.State, ExitCode: o.ExitCode, Seq: o.Seq, Time: now}
		if e.State.Terminal() {
			ended = append(ended, e)
		} else {
			placed = append(placed, e)
		}
	}
	return placed, ended
}

// advance feeds one snapshot's events to the watcher's machine.
// Placements first, then the clock, then outcomes: a snapshot that shows
// the gang timeout passed and the placed tasks' rendezvous timing out
// (the in-job barrier's own timeout) is the gang timeout.
func advance(m *completion.Machine, placed, ended []completion.TaskEvent, now time.Time) []completion.Action {
	acts := m.ObserveAll(placed)
	acts = append(acts, m.Tick(now)...)
	acts = append(acts, m.ObserveAll(ended)...)
	return append(acts, m.Tick(now)...)
}

// snapshotVerdict applies pol's rules to one snapshot with a fresh
// machine on the job's attempt and retry counters (no restarts, no
// clock: the watchers own those), which sees every task at once; nil
// when no rule fired. retry says whether the job runs again after it.
func snapshotVerdict(pol completion.Policy, obs []observed, attempt, retries int) (*completion.Verdict, completion.RetryDecision) {
	m := completion.NewMachine(pol, completion.MachineConfig{Attempt: attempt, Retries: retries})
	evs := make([]completion.TaskEvent, 0, len(obs))
	for _, o := range obs {
		evs = append(evs, completion.TaskEvent{TaskRef: o.TaskRef, State: o.State, ExitCode: o.ExitCode, Seq: o.Seq})
	}
	for _, a := range m.ObserveAll(evs) {
		if a.Kind == completion.ActVerdict {
			v := a.Verdict
			return &v, a.Retry
		}
	}
	return nil, completion.RetryDecision{}
}

// stoppedVerdict is the verdict of a job stopped from outside once every
// task in obs ended: what the machine gives a stopped attempt at its end
// (completion.UserStopped; a rule that fired before the stop stands).
func stoppedVerdict(pol completion.Policy, obs []observed) completion.Verdict {
	tasks := make([]completion.Task, 0, len(obs))
	for _, o := range obs {
		tasks = append(tasks, o.Task)
	}
	return completion.UserStopped(pol.Job(), tasks)
}
