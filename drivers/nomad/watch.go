package nomad

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// GangTimeoutReason starts the reason of a job stopped because it was not
// fully placed in time (the CLI exits 2 for it, as for any placement
// failure).
const GangTimeoutReason = "gang timeout"

// ErrNotJobshift: the Nomad job was not rendered by jobshift (no policy).
var ErrNotJobshift = errors.New("not a jobshift job")

// Watch follows a job with blocking queries on its allocations and enforces
// its source platform's completion rules, which Nomad lacks: when a rule
// fires the job is stopped (parameter servers never exit by themselves),
// the verdict is recorded (Nomad's `dead` says nothing about success),
// and a failed attempt is retried as a whole, per the job's retry policy,
// by registering it again. A job that is still not fully placed after the
// gang timeout is stopped: Nomad places what fits and queues the rest,
// so two half-placed jobs could otherwise wait on each other forever.
func (d *Driver) Watch(ctx context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	c, err := d.clientFor(h)
	if err != nil {
		return nil, err
	}
	w, err := d.newWatcher(ctx, c, h.ID)
	if err != nil {
		return nil, err
	}
	out := make(chan drivers.Event, 64)
	go func() {
		defer close(out)
		w.run(ctx, out)
	}()
	return out, nil
}

type watcher struct {
	d       *Driver
	c       *api.Client
	id      string
	pol     completion.Policy
	m       *completion.Machine
	version uint64
	last    map[jobs.TaskRef]observed
	job     *api.Job // as registered (the current version)

	// The topology snapshot (topology.go): its writer, the rendezvous
	// timeout, and the tasks it failed.
	co        *coordinator
	rvTimeout time.Duration
	rvFailed  map[jobs.TaskRef]observed

	// writer: the allocation and task of a finisher inside the job, which
	// its verdict names (verdict.go); empty for run and the controller
	writer verdictWriter

	// ends: the end markers read so far, and the allocations they were
	// read for (withOwnEnds)
	ends     map[string]endMark
	endsRead map[string]bool
	// keepEnds: the markers the verdict keeps (conclude; ends.go)
	keepEnds map[string]endMark

	// lr: a Volcano Job's policy restarts in place, read while the
	// attempt runs (vrestarts.go); nil when its tasks have none
	lr *liveRestarts
}

func (d *Driver) newWatcher(ctx context.Context, c *api.Client, id string) (*watcher, error) {
	info, _, err := c.Jobs().Info(id, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		if strings.Contains(err.Error(), "404") {
			return nil, fmt.Errorf("nomad job %q: %w", id, drivers.ErrNotFound)
		}
		return nil, fmt.Errorf("nomad job %q: %w", id, unavailable(err))
	}
	pol, ok := ParsePolicy(info.Meta)
	if !ok {
		return nil, fmt.Errorf("nomad job %q: %w (no %s meta)", id, ErrNotJobshift, MetaPolicy)
	}
	set, _ := newSettings(d.cfg.Site)
	w := &watcher{d: d, c: c, id: id, pol: pol, version: *info.Version, last: map[jobs.TaskRef]observed{}, job: info, rvTimeout: set.gangTimeout(pol.Completion)}
	attempt, _ := strconv.Atoi(info.Meta[MetaAttempt])
	retries, _ := strconv.Atoi(info.Meta[metaRetries])
	// The deadline and the gang timeout run from the version's submission
	// (Kubeflow jobs, which have deadlines, are never retried as a whole).
	// Tasks restart in place inside the task (restart.go), so the machine
	// sees a task end only once its restarts are over.
	start := time.Unix(0, *info.SubmitTime)
	w.m = completion.NewMachine(pol, completion.MachineConfig{Start: start, Attempt: attempt, Retries: retries,
		GangTimeout: set.gangTimeout(pol.Completion)})
	if !d.inTask && policyRestartsPossible(pol.Job()) {
		w.lr = newLiveRestarts()
	}
	if info.Stop != nil && *info.Stop {
		// Stopping a job registers a new version (Stop = true) that has
		// no allocations: the attempt is the version the allocations
		// ran.
		allocs, _, err := c.Jobs().Allocations(id, true, (&api.QueryOptions{}).WithContext(ctx))
		if err != nil {
			return nil, unavailable(err)
		}
		latest, found := uint64(0), false
		for _, a := range allocs {
			if !found || a.JobVersion > latest {
				latest, found = a.JobVersion, true
			}
		}
		if found {
			w.version = latest
		}
	}
	return w, nil
}

func (w *watcher) emit(ctx context.Context, out chan<- drivers.Event, e drivers.Event) {
	e.Time = time.Now()
	e.Attempt = w.m.Attempt()
	select {
	case out <- e:
	case <-ctx.Done():
	}
}

func (w *watcher) run(ctx context.Context, out chan<- drivers.Event) {
	if res := w.recorded(ctx); res != nil {
		// Decided earlier (by run, the controller or another status):
		// report, never act again (deleting the secrets is not acting on
		// the job: whoever recorded the verdict may have lacked the right)
		w.forgetSecrets(ctx)
		w.emit(ctx, out, drivers.Event{Final: res, Message: res.Reason})
		return
	}
	w.startCoordinator(ctx, w.job)
	defer w.stopCoordinator()
	var index uint64
	for ctx.Err() == nil {
		now := time.Now()
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: w.rvWait(now, w.wait(now))}).WithContext(ctx)
		allocs, meta, err := w.c.Jobs().Allocations(w.id, true, q)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.emit(ctx, out, drivers.Event{Message: "nomad: " + err.Error()})
			time.Sleep(time.Second)
			continue
		}
		index = meta.LastIndex
		if res, done := w.step(ctx, out, allocs); done {
			w.emit(ctx, out, drivers.Event{Final: res, Message: res.Reason})
			return
		}
	}
}

// wait bounds a blocking query so the machine's next tick (the gang
// timeout, the deadline, a restart's back-off) is taken on time.
func (w *watcher) wait(now time.Time) time.Duration {
	most := 5 * time.Second
	if _, decided := w.m.Verdict(); w.lr != nil && !w.lr.refused && !decided {
		most = livePoll // the policy restarts' records (vrestarts.go)
	}
	next := w.m.NextTick()
	if next.IsZero() || next.Sub(now) >= most {
		return most
	}
	return max(next.Sub(now), 10*time.Millisecond)
}

// step digests one allocation snapshot; done when the job is over. The
// attempt machine decides; the watcher reports what it observed and does
// what the machine says (deregister, register again, record).
func (w *watcher) step(ctx context.Context, out chan<- drivers.Event, allocs []*api.AllocationListStub) (*drivers.Result, bool) {
	now := time.Now()
	var changed []observed
	live := 0
	for _, o := range w.withOwnEnds(ctx, w.rendezvous(observe(w.pol, allocs, w.version, w.m.StoppingSet()), now)) {
		prev, seen := w.last[o.TaskRef]
		if !seen || prev.State != o.State {
			ref := o.TaskRef
			w.emit(ctx, out, drivers.Event{Task: &ref, State: o.State, ExitCode: o.ExitCode, Message: o.Message})
		}
		if !seen || prev.State != o.State || prev.ExitCode != o.ExitCode {
			changed = append(changed, o)
		}
		w.last[o.TaskRef] = o
		if !o.State.Terminal() {
			live++
		}
	}
	placed, ended := snapshotEvents(changed, now)
	acts := advance(w.m, placed, ended, now)
	if w.lr != nil && w.lr.ended {
		// The machine was given the end that exhausted maxRetry
		// (vrestarts.go) and its policy's timeout holds the action
		// (translate/completion delayed.go): the verdict comes with a
		// later tick, and is recorded before the stop as when it comes at
		// once (recordFirst), or a Docker task's poststop finisher, which
		// sees only killed tasks, records "stopped by the user" first.
		acts = w.recordFirst(ctx, out, acts)
	}
	w.act(ctx, out, acts)
	w.act(ctx, out, w.livePolicyRestarts(ctx, out, allocs, now))
	if _, decided := w.m.Verdict(); !decided || live > 0 || w.pendingAllocs(allocs) {
		return nil, false
	}
	// Every allocation of this attempt has ended.
	w.countPolicyRestarts(ctx, out, allocs)
	for _, a := range w.m.Ended() {
		if res := w.recorded(ctx); res != nil {
			// An in-job finisher decided first and stopped the job:
			// the tasks it stopped (itself among them, judging from
			// inside its task: FinishEnded) look stopped here, but the
			// rules fired, and its record is the verdict.
			w.forgetSecrets(ctx)
			return res, true
		}
		v := a.Verdict
		if a.Kind == completion.ActRetry {
			err := w.retry(ctx, out)
			if err == nil {
				w.emit(ctx, out, drivers.Event{Message: "retrying: " + a.Retry.Reason})
				return nil, false
			}
			v.Reason += "; retry failed: " + err.Error()
		}
		res := &drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: w.m.Attempt() + 1}
		w.record(ctx, res)
		return res, true
	}
	return nil, false
}

// withOwnEnds is obs with the tasks whose command ended by itself before
// a stop killed their in-task finisher shown as ended (ownEnds). The
// markers are read once for each allocation that looks stopped by a kill
// (a marker never changes): a read in a step that shows a new one, none
// otherwise; unreadable markers leave obs as it is.
func (w *watcher) withOwnEnds(ctx context.Context, obs []observed) []observed {
	read := false
	for _, o := range obs {
		if o.State == completion.Stopped && !o.Killed.IsZero() && !w.endsRead[o.AllocID] {
			read = true
		}
	}
	if read {
		ends, err := readEnds(ctx, w.c, w.id)
		if err != nil {
			return obs
		}
		if w.ends == nil {
			w.ends, w.endsRead = map[string]endMark{}, map[string]bool{}
		}
		for a, m := range ends {
			w.ends[a] = m
		}
		for _, o := range obs {
			if o.State == completion.Stopped && !o.Killed.IsZero() {
				w.endsRead[o.AllocID] = true
			}
		}
	}
	if len(w.ends) == 0 {
		return obs
	}
	return ownEnds(obs, w.ends)
}

// act executes the machine's actions: a verdict stops the whole job
// (deregister: every task still running ends by jobshift's hand, those of
// Verdict.Stop and of Keep too — Nomad jobs are not left half-running),
// unless the job was stopped from outside already.
func (w *watcher) act(ctx context.Context, out chan<- drivers.Event, acts []completion.Action) {
	for _, a := range acts {
		if a.Kind != completion.ActVerdict || a.Verdict.Phase == completion.PhaseStopped {
			continue
		}
		if w.recorded(ctx) != nil {
			// an in-job finisher judged first, recorded its verdict and
			// stopped the job (its own task's end is known from its
			// marker: withOwnEnds)
			continue
		}
		w.emit(ctx, out, drivers.Event{Message: fmt.Sprintf("%s: %s; stopping the job", a.Verdict.Phase, a.Verdict.Reason)})
		if _, _, err := w.c.Jobs().Deregister(w.id, false, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			w.emit(ctx, out, drivers.Event{Message: "stopping: " + err.Error()})
		}
	}
}

// pendingAllocs: an allocation of this version has not reached a client
// terminal status yet (its tasks may be dead while the alloc is stopping).
func (w *watcher) pendingAllocs(allocs []*api.AllocationListStub) bool {
	for _, a := range allocs {
		if a.JobVersion == w.version && a.ClientStatus != "complete" && a.ClientStatus != "failed" && a.ClientStatus != "lost" {
			return true
		}
	}
	return false
}

// retry registers the job again (a new version) with the attempt counted
// in meta (the machine counted the retry); the allocations of the old
// version have all ended. The spread cap is fitted to the clients up now
// (a lost host is why many retries happen: spread.go).
func (w *watcher) retry(ctx context.Context, out chan<- drivers.Event) error {
	job, _, err := w.c.Jobs().Info(w.id, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	attempt, retries := w.m.Attempt()+1, w.m.Retries()
	job.Meta[MetaAttempt] = strconv.Itoa(attempt)
	job.Meta[metaRetries] = strconv.Itoa(retries)
	job.Stop = new(false)
	if note, err := fitSpread(ctx, w.c, job); err != nil {
		return err
	} else if note != "" {
		w.emit(ctx, out, drivers.Event{Message: note})
	}
	// No task of the new attempt may read this attempt's snapshot.
	w.stopCoordinator()
	if err := deleteTopology(ctx, w.c, job); err != nil {
		return err
	}
	// Enforced on the modify index: when another watcher (the controller,
	// or a run) retried first, this register fails and we follow theirs.
	if _, _, err := w.c.Jobs().EnforceRegister(job, *job.JobModifyIndex, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		info, _, ierr := w.c.Jobs().Info(w.id, (&api.QueryOptions{}).WithContext(ctx))
		if ierr != nil || *info.Version == w.version {
			return err
		}
		attempt, _ = strconv.Atoi(info.Meta[MetaAttempt])
		retries, _ = strconv.Atoi(info.Meta[metaRetries])
	}
	info, _, err := w.c.Jobs().Info(w.id, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	w.version, w.job = *info.Version, info
	w.m.NewAttempt(time.Unix(0, *info.SubmitTime), attempt, retries)
	w.last, w.rvFailed = map[jobs.TaskRef]observed{}, nil
	if w.lr != nil {
		refused := w.lr.refused
		w.lr = newLiveRestarts()
		w.lr.refused = refused
	}
	w.startCoordinator(ctx, info)
	return nil
}

// record stores the verdict, which `jobshift status` reads later.
func (w *watcher) record(ctx context.Context, res *drivers.Result) {
	v := &api.Variable{Path: ResultPath(w.id), Items: api.VariableItems{
		"phase":    string(res.Phase),
		"exitCode": strconv.Itoa(res.ExitCode),
		"reason":   res.Reason,
		"attempts": strconv.Itoa(res.Attempts),
		"version":  strconv.FormatUint(w.version, 10),
	}}
	if len(w.keepEnds) > 0 {
		v.Items["ends"] = formatEnds(w.keepEnds)
	}
	w.writer.sign(v.Items)
	_, _, _ = w.c.Variables().Create(v, (&api.WriteOptions{}).WithContext(ctx))
	w.forgetSecrets(ctx)
}

// forgetSecrets deletes the job's Variable (PAI v2 secrets, the ssh
// emulation's job key; secrets.go) once the verdict is in: no task of
// the job reads it again (a retry registers the job before any verdict
// is recorded). Every path that records a verdict calls it — run's
// watcher, the controller, the in-job finisher — and so does a watcher
// that finds the verdict recorded (the finisher's workload identity may
// lack the right to delete). Deleting what is not there is no error; a
// failure is reported, since a secret would outlive its job.
func (w *watcher) forgetSecrets(ctx context.Context) {
	if w.job != nil && ShapeOf(w.job).Rendezvous == RendezvousSnap {
		w.stopCoordinator()
		if err := deleteTopology(ctx, w.c, w.job); err != nil && w.d.cfg.Warnings != nil {
			fmt.Fprintf(w.d.cfg.Warnings, "jobshift: %v\n", err)
		}
	}
	// an in-task finisher records before it stops the job (and may not
	// destroy): the markers go when a watcher sees the verdict
	if !w.d.inTask {
		if err := deleteEnds(ctx, w.c, w.id); err != nil && w.d.cfg.Warnings != nil {
			fmt.Fprintf(w.d.cfg.Warnings, "jobshift: %v\n", err)
		}
	}
	path := VariablePath(w.id)
	if _, err := w.c.Variables().Delete(path, (&api.WriteOptions{}).WithContext(ctx)); err != nil && !strings.Contains(err.Error(), "404") {
		if w.d.cfg.Warnings != nil {
			fmt.Fprintf(w.d.cfg.Warnings, "jobshift: could not delete Nomad Variable %s (the job's secrets) after its verdict: %v\n", path, err)
		}
	}
}

// recorded returns the verdict stored for the job's current version.
func (w *watcher) recorded(ctx context.Context) *drivers.Result {
	return verdictResult(w.recordedVariable(ctx))
}

// recordedVariable is the Variable of the verdict stored for the job's
// current version, nil when none can be this job's.
func (w *watcher) recordedVariable(ctx context.Context) *api.Variable {
	v, _, err := w.c.Variables().Read(ResultPath(w.id), (&api.QueryOptions{}).WithContext(ctx))
	if err != nil || v == nil || v.Items["version"] != strconv.FormatUint(w.version, 10) {
		return nil
	}
	if why := w.unattributable(ctx, v); why != "" {
		if w.d != nil && w.d.cfg.Warnings != nil {
			fmt.Fprintf(w.d.cfg.Warnings, "jobshift: ignoring the verdict in Nomad Variable %s: %s\n", v.Path, why)
		}
		return nil
	}
	return v
}

// verdictResult reads a verdict Variable (nil: none).
func verdictResult(v *api.Variable) *drivers.Result {
	if v == nil {
		return nil
	}
	code, _ := strconv.Atoi(v.Items["exitCode"])
	att, _ := strconv.Atoi(v.Items["attempts"])
	return &drivers.Result{Phase: completion.Phase(v.Items["phase"]), ExitCode: code, Reason: v.Items["reason"], Attempts: att}
}
