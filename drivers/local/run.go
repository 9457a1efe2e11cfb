package local

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// exitSetup is the job's exit code when an attempt could not even start
// (ports, contract): no task ran, so no task's code can stand in.
const exitSetup = 1

// run is one submitted job: its supervisor goroutine and what it reports.
type run struct {
	d      *Driver
	plan   *translate.Plan
	dir    string
	events *broker
	mux    *lineMux
	log    *os.File // output.log, closed when the run ends

	stopOnce, killOnce sync.Once
	stopReq, killReq   chan struct{}
	mu                 sync.Mutex
	stops              int

	done   chan struct{}
	result *drivers.Result
	seq    int64
}

func newRun(d *Driver, p *translate.Plan, dir string) *run {
	out := d.opts.Output
	// The whole job's prefixed output is also kept, for Logs.
	f, err := os.Create(filepath.Join(dir, "output.log"))
	if err == nil {
		out = io.MultiWriter(out, f)
	}
	return &run{d: d, plan: p, dir: dir, events: newBroker(dir), mux: &lineMux{w: out}, log: f,
		stopReq: make(chan struct{}), killReq: make(chan struct{}), done: make(chan struct{})}
}

// requestStop asks the job to stop; the second request kills at once.
func (r *run) requestStop() {
	r.mu.Lock()
	r.stops++
	n := r.stops
	r.mu.Unlock()
	if n == 1 {
		r.stopOnce.Do(func() { close(r.stopReq) })
		return
	}
	r.killOnce.Do(func() { close(r.killReq) })
}

func (r *run) emit(e drivers.Event) {
	e.Time = time.Now()
	r.events.emit(e)
}

// loop runs attempts until the job ends and the retry policy says no more.
func (r *run) loop() {
	defer close(r.done)
	job := r.plan.Job
	var deadline <-chan time.Time
	if dl, ok := completion.Deadline(job); ok {
		// Kubeflow measures activeDeadlineSeconds from the job's start,
		// across restarts.
		t := time.NewTimer(dl)
		defer t.Stop()
		deadline = t.C
	}
	retries := 0
	var res drivers.Result
	for a := 0; ; a++ {
		v, final := r.attempt(a, deadline)
		res = drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: a + 1}
		if final {
			break
		}
		dec := completion.JobRetry(job, v, retries)
		if !dec.Retry {
			if a > 0 || dec.Reason != "" && v.Phase == completion.PhaseFailed {
				r.emit(drivers.Event{Attempt: a, Message: "not retried: " + dec.Reason})
			}
			break
		}
		if dec.Counted {
			retries++
		}
		r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("attempt %d %s; retrying the whole job: %s", a, v.Phase, dec.Reason)})
	}
	r.result = &res
	if r.log != nil {
		r.mux.mu.Lock()
		r.log.Close()
		r.mux.w = r.d.opts.Output
		r.mux.mu.Unlock()
	}
	r.emit(drivers.Event{Attempt: res.Attempts - 1, Final: &res})
	r.events.close()
}

// slot is one task of the current attempt.
type slot struct {
	ref      jobs.TaskRef
	spec     *taskSpec
	p        *proc
	state    completion.State
	code     int
	restarts int // counted restarts (completion.Task.Restarts)
	starts   int // restarts of any kind, for the start directory name
	seq      int64

	// Restart backoff (completion.Backoff): the streak of restarts, when
	// the current run started, and the pending restart while the task
	// waits (CrashLoopBackOff; the task is not terminal meanwhile).
	streak  int
	started time.Time
	waiting *time.Timer

	// ps is a UAI node's parameter-server process (spec.PS): started with
	// the attempt, kept across in-place restarts of the training process,
	// stopped when the job's verdict is in. It is not a task to the
	// completion engine: the training process's exit is the task's exit.
	ps      *proc
	psEnded bool
}

// attempt runs one attempt of the whole job. final reports an end that is
// never retried (stopped by the user, deadline, setup failure).
func (r *run) attempt(a int, deadline <-chan time.Time) (v completion.Verdict, final bool) {
	job := r.plan.Job
	specs, err := r.d.prepare(r.plan, r.dir, a)
	if err != nil {
		v := completion.Verdict{Phase: completion.PhaseFailed, ExitCode: exitSetup, Reason: err.Error()}
		r.emit(drivers.Event{Attempt: a, Message: "cannot start attempt: " + err.Error()})
		return v, true
	}
	r.chooseWorkMode(specs)
	exits := make(chan exit, 2*len(specs))
	// A slot waits at most once at a time, so a timer never blocks on
	// sending, even after the attempt returned.
	relaunch := make(chan *slot, len(specs))
	slots := make([]*slot, len(specs))
	byProc := map[*proc]*slot{}
	psOf := map[*proc]*slot{}
	list := func() []completion.Task {
		ts := make([]completion.Task, len(slots))
		for i, s := range slots {
			ts[i] = completion.Task{TaskRef: s.ref, State: s.state, ExitCode: s.code, Restarts: s.restarts, Seq: s.seq}
		}
		return ts
	}
	launch := func(s *slot) {
		s.waiting = nil
		s.started = time.Now()
		s.p = start(s.spec, startDir(s.spec.TaskDir, a, s.starts), r.d.opts.Docker, r.mux, exits)
		byProc[s.p] = s
		s.state = completion.Running
		ref := s.ref
		msg := ""
		if s.p.pgid != 0 {
			msg = fmt.Sprintf("pid %d", s.p.pgid)
		}
		r.emit(drivers.Event{Attempt: a, Task: &ref, State: completion.Running, Message: msg})
	}
	r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("attempt %d: starting %d tasks", a, len(specs))})
	// Gang start: every task's contract was computed before any of them
	// starts, so all peers are known up front, as after PAI's barrier.
	for i, sp := range specs {
		slots[i] = &slot{ref: sp.Ref, spec: sp}
		launch(slots[i])
		if sp.PS != nil {
			s := slots[i]
			s.ps = start(sp.PS, psDir(sp.TaskDir, a), r.d.opts.Docker, r.mux, exits)
			psOf[s.ps] = s
			r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("%s started (pid %d): the parameter server beside task %s",
				sp.PS.name(), s.ps.pgid, refString(sp.Ref))})
		}
	}

	ending, userStop := false, false
	stopReq, killReq := r.stopReq, r.killReq
	var cancelWait func(*slot)
	stopRefs := func(refs []jobs.TaskRef, grace time.Duration) {
		want := map[jobs.TaskRef]bool{}
		for _, ref := range refs {
			want[ref] = true
		}
		for _, s := range slots {
			switch {
			case want[s.ref] && s.waiting != nil:
				cancelWait(s)
			case want[s.ref] && !s.state.Terminal():
				s.p.stop(grace)
			}
		}
	}
	// cancelWait ends a task waiting for its restart: nothing runs, so it
	// is stopped at once, with the code of its last run.
	cancelWait = func(s *slot) {
		s.waiting.Stop()
		s.waiting = nil
		s.state = completion.Stopped
		r.seq++
		s.seq = r.seq
		ref := s.ref
		r.emit(drivers.Event{Attempt: a, Task: &ref, State: s.state, ExitCode: s.code, Message: "stopped while waiting to restart"})
	}
	// Parameter servers never end by themselves; like a PS role's tasks
	// they are stopped once the verdict is in (or on Stop or deadline).
	stopPS := func(grace time.Duration) {
		for _, s := range slots {
			if s.ps != nil && !s.psEnded {
				s.ps.stop(grace)
			}
		}
	}
	allRefs := func() []jobs.TaskRef {
		out := make([]jobs.TaskRef, len(slots))
		for i, s := range slots {
			out[i] = s.ref
		}
		return out
	}
	allEnded := func() bool {
		for _, s := range slots {
			if !s.state.Terminal() || s.ps != nil && !s.psEnded {
				return false
			}
		}
		return true
	}

	for {
		if ending {
			// Nothing restarts once the verdict is in or a stop began.
			for _, s := range slots {
				if s.waiting != nil {
					cancelWait(s)
				}
			}
		}
		if ending && allEnded() {
			if userStop {
				v = completion.UserStopped(job, list())
			}
			return v, userStop || final
		}
		select {
		case ex := <-exits:
			if s := psOf[ex.p]; s != nil {
				s.psEnded = true
				how := fmt.Sprintf("exited %d by itself; it decides nothing and is not restarted", ex.code)
				if ex.p.wasStopped() {
					how = fmt.Sprintf("stopped (exit %d)", ex.code)
				}
				r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("%s %s", s.spec.PS.name(), how)})
				continue
			}
			s := byProc[ex.p]
			if s == nil || s.p != ex.p {
				continue
			}
			r.seq++
			s.code = ex.code
			ref := s.ref
			switch {
			case ex.p.wasStopped():
				s.state = completion.Stopped
			case ex.code == 0:
				s.state = completion.Succeeded
			default:
				s.state = completion.Failed
			}
			msg := ""
			if ex.err != nil {
				msg = ex.err.Error()
			}
			if !ending && s.state != completion.Stopped {
				dec := completion.TaskRestartDecision(job, s.ref.Role, s.code, completion.RestartsSoFar(job, s.ref, list()))
				if dec.Retry {
					if dec.Counted {
						s.restarts++
					}
					s.starts++
					var wait time.Duration
					wait, s.streak = r.d.opts.RestartBackoff.Next(s.streak, time.Since(s.started))
					if wait == 0 {
						r.emit(drivers.Event{Attempt: a, Task: &ref, State: s.state, ExitCode: s.code,
							Message: fmt.Sprintf("exited %d; restarting in place (%s)", s.code, dec.Reason)})
						launch(s)
						continue
					}
					r.emit(drivers.Event{Attempt: a, Task: &ref, State: s.state, ExitCode: s.code,
						Message: fmt.Sprintf("exited %d; restarting in place after a back-off of %s, as the kubelet's CrashLoopBackOff (%s)", s.code, wait, dec.Reason)})
					// Not terminal while it waits, as a pod in CrashLoopBackOff.
					s.state = completion.Running
					s.waiting = time.AfterFunc(wait, func() { relaunch <- s })
					continue
				}
			}
			s.seq = r.seq
			r.emit(drivers.Event{Attempt: a, Task: &ref, State: s.state, ExitCode: s.code, Message: msg})
			if ending {
				continue
			}
			if d := completion.Decide(job, list()); d.Phase.Done() {
				ending, v = true, d
				r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("attempt %d %s: %s", a, d.Phase, d.Reason)})
				// The local driver must end: what the platform would
				// have left running (cleanPodPolicy None) stops too.
				stopRefs(append(d.Stop, d.Keep...), r.d.opts.Grace)
				stopPS(r.d.opts.Grace)
			} else if len(d.Stop) > 0 {
				stopRefs(d.Stop, r.d.opts.Grace)
			}
		case s := <-relaunch:
			// A timer that fired just as the wait was cancelled is stale.
			if s.waiting != nil && !ending {
				launch(s)
			}
		case <-stopReq:
			stopReq = nil
			if !ending {
				ending, userStop = true, true
				r.emit(drivers.Event{Attempt: a, Message: "stopping: every task gets SIGTERM, then SIGKILL after " + r.d.opts.Grace.String()})
			}
			stopRefs(allRefs(), r.d.opts.Grace)
			stopPS(r.d.opts.Grace)
		case <-killReq:
			killReq = nil
			ending, userStop = true, true
			r.emit(drivers.Event{Attempt: a, Message: "stopping now: SIGKILL"})
			stopRefs(allRefs(), 0)
			stopPS(0)
		case <-deadline:
			deadline = nil
			d := completion.DeadlineVerdict(job, list())
			if !ending || userStop {
				v, userStop = d, false
			}
			ending, final = true, true
			r.emit(drivers.Event{Attempt: a, Message: d.Reason})
			stopRefs(allRefs(), r.d.opts.Grace)
			stopPS(r.d.opts.Grace)
		}
	}
}

// chooseWorkMode sets how the attempt's tasks get their private working
// directories (workdir.go); the run directory exists by now.
func (r *run) chooseWorkMode(specs []*taskSpec) {
	for _, s := range specs {
		for _, sp := range []*taskSpec{s, s.PS} {
			if sp != nil && sp.Shared != "" {
				sp.Work = r.d.workModeFor(sp.Shared, r.dir)
			}
		}
	}
}

// prepare computes the attempt's ports, contract and task specs, without
// side effects beyond probing for free ports.
func (d *Driver) prepare(p *translate.Plan, runDir string, attempt int) ([]*taskSpec, error) {
	addr, bridge := loopback, false
	if d.opts.Docker && isLeinao(p) {
		gw, err := bridgeGateway()
		if err != nil {
			return nil, err
		}
		addr, bridge = gw, true
	}
	topo, err := allocate(p, d.opts.ports(addr), addr, bridge)
	if err != nil {
		return nil, err
	}
	procs := contract.Processes(p.Job, contractOptions(p))
	var specs []*taskSpec
	for _, ref := range refs(p.Job) {
		var main *taskSpec
		// procs[0] is the task's own process; a UAI node's parameter
		// server (procs[1]) hangs off it.
		for _, proc := range procs {
			env, err := contractEnv(p, topo, ref, proc)
			if err != nil {
				return nil, fmt.Errorf("contract of task %s: %w", refString(ref), err)
			}
			s, err := d.buildSpec(p, runDir, attempt, ref, proc, env)
			if err != nil {
				return nil, err
			}
			if bridge {
				s.Argv = publishLeinao(s.Argv, topo[ref])
			}
			if main == nil {
				main = s
			} else {
				main.PS = s
			}
		}
		specs = append(specs, main)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("job %q has no tasks", p.Job.Name)
	}
	return specs, nil
}
