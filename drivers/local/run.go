package local

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
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
	f, err := os.OpenFile(filepath.Join(dir, "output.log"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
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
	if e.Time.IsZero() { // else the instant the machine was told (attempt_do.go)
		e.Time = time.Now()
	}
	r.events.emit(e)
}

// loop runs attempts until the job ends: the attempt machine
// (completion.Machine) decides restarts, stops, verdicts and retries; this
// driver executes them (attempt.go).
func (r *run) loop() {
	defer close(r.done)
	// Kubeflow measures activeDeadlineSeconds from the job's start, across
	// restarts: the machine's Start.
	m := completion.NewMachine(r.plan.Compiled().Policy, completion.MachineConfig{
		Start: time.Now(), RestartInPlace: true, Backoff: r.d.opts.RestartBackoff})
	var res drivers.Result
	for {
		a := m.Attempt()
		end := r.attempt(m)
		v := end.Verdict
		res = drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: a + 1}
		if end.Kind != completion.ActRetry {
			if !end.Final && (a > 0 || v.Phase == completion.PhaseFailed) {
				r.emit(drivers.Event{Attempt: a, Message: "not retried: " + end.Retry.Reason})
			}
			break
		}
		r.emit(drivers.Event{Attempt: a, Message: fmt.Sprintf("attempt %d %s; retrying the whole job: %s", a+1, v.Phase, end.Retry.Reason)})
		m.NewAttempt(time.Now(), -1, 0)
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
	// every refusal at once: the roles' commands, then the ports
	refused := checkCommands(p, d.opts.Docker)
	topo, err := allocate(p, d.opts.ports(addr), addr, bridge)
	if err != nil && refused.merge(err) != nil {
		return nil, err
	}
	if err := refused.err(); err != nil {
		return nil, err
	}
	procs := p.Compiled().Processes
	bound, err := bindContract(p, topo, runDir, d.namesResolve())
	if err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	kvs, layouts := map[string][]string{}, &envLayouts{}
	var specs []*taskSpec
	for _, ref := range refs(p.Job) {
		var main *taskSpec
		// procs[0] is the task's own process; a UAI node's parameter
		// server (procs[1]) hangs off it.
		for _, proc := range procs {
			env, err := contractEnv(bound, kvs, ref, proc)
			if err != nil {
				return nil, fmt.Errorf("contract of task %s: %w", refString(ref), err)
			}
			s, err := d.buildSpec(p, runDir, attempt, ref, proc, env, layouts)
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
	if err := d.addViews(p, specs, attempt); err != nil {
		return nil, err
	}
	return specs, nil
}
