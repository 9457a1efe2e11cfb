package local

import (
	"fmt"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// slot is one task of the current attempt.
type slot struct {
	ref    jobs.TaskRef
	spec   *taskSpec
	p      *proc
	state  completion.State
	code   int
	starts int // restarts of any kind, for the start directory name
	// ended is the state of the run that just ended, while the task
	// waits for its restart (waiting: the machine's back-off).
	ended   completion.State
	endedAt time.Time // when that run's exit reached the machine
	waiting bool

	// ps is a UAI node's parameter-server process (spec.PS): started with
	// the attempt, kept across in-place restarts of the training process,
	// stopped when the job's verdict is in. It is not a task to the
	// completion machine: the training process's exit is the task's exit.
	ps      *proc
	psEnded bool
}

// attempt is one attempt of the whole job as this driver executes it: it
// starts processes and reports their starts and exits to the machine, and
// does what the machine answers.
type attempt struct {
	r      *run
	m      *completion.Machine
	a      int
	slots  []*slot
	byRef  map[jobs.TaskRef]*slot
	byProc map[*proc]*slot
	psOf   map[*proc]*slot
	exits  chan exit
	end    *completion.Action // ActEnd or ActRetry, once given
	// stopping: the user asked to stop (or kill); messages only.
	stopping bool
}

// attempt runs one attempt and returns how it ended (ActEnd or ActRetry;
// an attempt that cannot start ends the job: ActEnd, Final).
func (r *run) attempt(m *completion.Machine) completion.Action {
	a := m.Attempt()
	specs, err := r.d.prepare(r.plan, r.dir, a)
	if err == nil {
		// the ssh emulation's wrapper and key for this attempt (sshemu)
		var cleanup func()
		cleanup, err = sshFiles(r.plan, r.dir, a)
		defer cleanup()
	}
	if err == nil && !r.d.opts.Docker {
		err = viewScript(r.dir)
	}
	if err != nil {
		r.emit(drivers.Event{Attempt: a, Message: "cannot start attempt: " + err.Error()})
		return completion.Action{Kind: completion.ActEnd, Final: true,
			Verdict: completion.Verdict{Phase: completion.PhaseFailed, ExitCode: exitSetup, Reason: err.Error()}}
	}
	r.chooseWorkMode(specs)
	at := &attempt{r: r, m: m, a: a, byRef: map[jobs.TaskRef]*slot{}, byProc: map[*proc]*slot{},
		psOf: map[*proc]*slot{}, exits: make(chan exit, 2*len(specs))}
	at.startAll(specs)
	at.wait()
	return *at.end
}

// startAll starts every task at once (gang start: every task's contract
// was computed before any of them starts, so all peers are known up front,
// as after PAI's barrier), and each UAI node's parameter server. A role
// with dependencies (jobs.Role.DependsOn) waits: startWaiting starts it.
func (at *attempt) startAll(specs []*taskSpec) {
	r, a := at.r, at.a
	r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("attempt %d: starting %d tasks", a+1, len(specs))})
	for _, sp := range specs {
		s := &slot{ref: sp.Ref, spec: sp}
		at.slots = append(at.slots, s)
		at.byRef[s.ref] = s
		if d, _ := completion.MayStart(r.plan.Job, r.plan.Job.Role(s.ref.Role), at.m.Tasks()); d != completion.StartNow {
			s.state = completion.Pending // its role waits for its dependencies (order.go)
			continue
		}
		at.launch(s)
		if sp.PS != nil {
			s.ps = start(sp.PS, psDir(sp.TaskDir, a), r.d.opts.Docker, r.mux, at.exits)
			at.psOf[s.ps] = s
			r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("%s started (pid %d): the parameter server beside task %s",
				sp.PS.name(), s.ps.pgid, refString(sp.Ref))})
		}
	}
}

func (at *attempt) launch(s *slot) {
	r := at.r
	s.waiting = false
	s.p = start(s.spec, startDir(s.spec.TaskDir, at.a, s.starts), r.d.opts.Docker, r.mux, at.exits)
	at.byProc[s.p] = s
	s.state = completion.Running
	ref := s.ref
	msg := ""
	if s.p.pgid != 0 {
		msg = fmt.Sprintf("pid %d", s.p.pgid)
	}
	// One instant for the event and the machine, as for exits (onExit).
	now := time.Now()
	r.emit(drivers.Event{Attempt: at.a, Task: &ref, State: completion.Running, Message: msg, Time: now})
	at.do(at.m.Observe(completion.TaskEvent{TaskRef: ref, State: completion.Running, Time: now}))
}

// wait runs the attempt until the machine ends it.
func (at *attempt) wait() {
	r := at.r
	stopReq, killReq := r.stopReq, r.killReq
	for at.end == nil {
		// The machine's clock: deadline and restart back-offs.
		var tick <-chan time.Time
		var timer *time.Timer
		if next := at.m.NextTick(); !next.IsZero() {
			timer = time.NewTimer(time.Until(next))
			tick = timer.C
		}
		select {
		case ex := <-at.exits:
			at.onExit(ex)
		case now := <-tick:
			at.do(at.m.Tick(now))
		case <-stopReq:
			stopReq = nil
			if _, decided := at.m.Verdict(); !decided && !at.stopping {
				r.emit(drivers.Event{Attempt: at.a, Message: "stopping: every task gets SIGTERM, then SIGKILL after " + r.d.opts.Grace.String()})
			}
			at.stopping = true
			at.do(at.m.Stop())
			at.stopPS(r.d.opts.Grace)
		case <-killReq:
			killReq = nil
			at.stopping = true
			r.emit(drivers.Event{Attempt: at.a, Message: "stopping now: SIGKILL"})
			at.do(at.m.Stop())
			at.kill()
		}
		if timer != nil {
			timer.Stop()
		}
		at.startWaiting()
		if at.allEnded() {
			at.do(at.m.Ended())
		}
	}
}
