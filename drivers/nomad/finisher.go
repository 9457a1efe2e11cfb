package nomad

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

// The in-job finisher: how a translated job submitted with plain
// `nomad job run`, with no jobshift process anywhere, still ends when its
// completion rule fires (Nomad has no job-level leader: spec/nomad.md §3).
//
// Every group gets a poststop task, `finish`, that runs the
// site's jobshift binary (nomad.helper) after the group's main task ended.
// It talks to the Nomad API over the Task API socket with the task's
// workload identity (identity { env = true } gives NOMAD_TOKEN; the socket
// is NOMAD_UNIX_ADDR), reads the job's allocations, and applies the same
// completion engine as `run` and the controller. When the verdict is in
// and the policy asks for no retry, it records the verdict (the Variable
// ResultPath) and stops the job — which stops the parameter servers. Each
// deciding task's end triggers one finisher, so the task whose end fires
// the rule is always followed by a finisher that sees it; the finisher
// waits until the server has seen its own task end and the other tasks'
// states are stable for a moment (client updates reach the server in
// batches), then exits whether or not a rule fired.
//
// Limits: whole-job retries need a jobshift process (run or controller):
// a finisher never re-registers the job, since the attempt's allocations
// (its own included) have not ended yet; when a retry is due it leaves the
// job to them. With ACLs on, the job needs a policy granting
// `read-job`, `deregister-job` and `variables` write on its result path
// (FinisherPolicy, acl.go). The poststop task uses
// raw_exec, as the helper is a host binary. Nomad creates the Task API
// socket at <data_dir>/alloc/<alloc UUID>/<task>/secrets/api.sock and a
// unix socket path has at most 107 bytes, so the task name is short and a
// client's data_dir must be at most ~40 bytes long (Nomad logs "error
// creating task api socket ... bind: invalid argument" otherwise).

func (r *renderer) finisher() *api.Task {
	return r.finishTask(FinisherTask, &api.TaskLifecycle{Hook: "poststop"})
}

func (r *renderer) judge() *api.Task {
	t := r.finishTask(JudgeTask, &api.TaskLifecycle{Hook: "poststart"})
	t.Config["args"] = []string{"nomad-finish", FinishAfterMain}
	return t
}

func (r *renderer) finishTask(name string, lc *api.TaskLifecycle) *api.Task {
	return &api.Task{
		Name:       name,
		Driver:     "raw_exec",
		Lifecycle:  lc,
		Config:     map[string]any{"command": r.set.Helper, "args": []string{"nomad-finish"}},
		Identities: []*api.WorkloadIdentity{{Name: "default", Env: true}},
		Resources:  &api.Resources{CPU: new(50), MemoryMB: new(64)},
	}
}

// WaitMainEnded blocks until allocation self's main task has ended (the
// judge's first step), following the job's allocation list with blocking
// queries rather than polling.
func (d *Driver) WaitMainEnded(ctx context.Context, id, self string) error {
	c, err := d.Client()
	if err != nil {
		return err
	}
	var index uint64
	for {
		q := &api.QueryOptions{WaitIndex: index, WaitTime: 30 * time.Second}
		allocs, meta, err := c.Jobs().Allocations(id, false, q.WithContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(time.Second) // a client or server restart: try again
			continue
		}
		for _, a := range allocs {
			if a.ID != self {
				continue
			}
			if ts := a.TaskStates[MainTask]; ts != nil && ts.State == "dead" {
				return nil
			}
		}
		index = meta.LastIndex
	}
}

// Finish is the finisher's work (the `jobshift nomad-finish` command): one
// judgement of job id from inside allocation self.
//
// It waits until the server shows its own task ended (client updates
// reach the server in batches), reads the job's allocations once, judges
// them and exits. One read is enough: the server's state only moves
// forward and reads go to the leader, so of the finishers of tasks that
// ended close together, the one that reads last sees every one of those
// ends, its own and the earlier ones, each visible before its own finisher
// read. Whichever task's end fires the rule, some finisher sees it. An
// earlier finisher waited for the others to look stable for 3 s; at 1,000
// tasks ending together that kept a thousand of them alive at once, each
// polling every allocation (BENCHMARKS.md, the 1,000-task PAI job).
func (d *Driver) Finish(ctx context.Context, id, self string, log func(string)) error {
	c, err := d.Client()
	if err != nil {
		return err
	}
	w, err := d.newWatcher(ctx, c, id)
	if err != nil {
		return err
	}
	w.writer = taskWriter(self, FinisherTask)
	if w.recorded(ctx) != nil {
		log("verdict already recorded")
		return nil
	}
	current, err := w.ownEnded(ctx, self, 30*time.Second)
	if err != nil {
		return err
	}
	if !current {
		log("this allocation is not of the job's current version: nothing to judge")
		return nil
	}
	allocs, _, err := w.c.Jobs().Allocations(id, true, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	said, _, err := w.conclude(ctx, allocs, nil)
	log(said)
	return err
}

// conclude judges one view of the job's allocations, with the tasks the
// end markers ends (ends.go) ended, and, when a rule fired and no retry is
// due, records the verdict and stops the job (stopped); said is what it
// found, for the log.
func (w *watcher) conclude(ctx context.Context, allocs []*api.AllocationListStub, ends map[string]endMark) (said string, stopped bool, err error) {
	v, retry, seen := judge(w, allocs, ends)
	switch {
	case v == nil:
		return "no rule fired: " + seen, false, nil
	case retry.Retry:
		return "verdict " + string(v.Phase) + ", but a retry is due (" + retry.Reason + "): left to jobshift run/controller", false, nil
	}
	// the markers of the tasks still running go with the verdict: the
	// stop may reach them after their command ended (ends.go)
	w.keepEnds = unseenEnds(observe(w.pol, allocs, w.version, nil), ends)
	w.record(ctx, &drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: w.m.Attempt() + 1})
	said = fmt.Sprintf("%s: %s; stopping the job", v.Phase, v.Reason)
	_, _, err = w.c.Jobs().Deregister(w.id, false, (&api.WriteOptions{}).WithContext(ctx))
	return said, true, err
}

// FinishEnded is the in-task finisher (`jobshift nomad-finish -exit
// CODE`): run by the stop wrapper or restart loop of allocation self's
// main task once its command has ended for good with code, in place of
// the task's exit, which follows. It writes the task's end marker
// (ends.go), reads every marker and the job's allocations, and judges
// them as the poststop finisher does, the marked tasks ended. The raw_exec
// groups of a job jobshift run watches get it in place of the poststop
// task (the shape's Finisher: decider.inTaskFinisher). It returns the verdict it stopped the job with,
// "" when it stopped nothing.
func (d *Driver) FinishEnded(ctx context.Context, id, self string, code int) (string, error) {
	c, err := d.Client()
	if err != nil {
		return "", err
	}
	w, err := d.newWatcher(ctx, c, id)
	if err != nil {
		return "", err
	}
	w.writer = verdictWriter{alloc: self, task: MainTask}
	if w.recorded(ctx) != nil {
		return "", nil
	}
	a, err := w.ownAlloc(ctx, self)
	if err != nil || a != nil && a.JobVersion != w.version {
		return "", err // another version's finishers judge that one
	}
	if err := writeEnd(ctx, w.c, id, self, code); err != nil {
		return "", err
	}
	ends, err := readEnds(ctx, w.c, id)
	if err != nil {
		return "", err
	}
	allocs, _, err := w.c.Jobs().Allocations(id, true, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return "", unavailable(err)
	}
	said, stopped, err := w.conclude(ctx, allocs, ends)
	if !stopped {
		said = ""
	}
	return said, err
}

// ownEnded waits until the server shows allocation self's main task
// ended, reading only that allocation (a prefix query on its ID, not the
// job's whole list). It reports false at once when self belongs to
// another version of the job than the one w judges: a newer attempt's
// finishers judge that one.
func (w *watcher) ownEnded(ctx context.Context, self string, limit time.Duration) (bool, error) {
	deadline := time.Now().Add(limit)
	for {
		a, err := w.ownAlloc(ctx, self)
		if err != nil {
			return false, err
		}
		if a != nil && a.JobVersion != w.version {
			return false, nil
		}
		if a != nil {
			if ts := a.TaskStates[MainTask]; ts != nil && ts.State == "dead" {
				return true, nil
			}
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("the server did not show allocation %s's task %q ended within %s", self, MainTask, limit)
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ownAlloc reads allocation self alone (a prefix query on its ID, not the
// job's whole list); nil when the server does not know it.
func (w *watcher) ownAlloc(ctx context.Context, self string) (*api.AllocationListStub, error) {
	stubs, _, err := w.c.Allocations().List((&api.QueryOptions{Prefix: self}).WithContext(ctx))
	if err != nil {
		return nil, unavailable(err)
	}
	for _, a := range stubs {
		if a.ID == self {
			return a, nil
		}
	}
	return nil, nil
}

// judge is snapshotVerdict on one view of w's job version's allocations,
// with the tasks the end markers ends end; seen lists the task states,
// for the log.
func judge(w *watcher, allocs []*api.AllocationListStub, ends map[string]endMark) (*completion.Verdict, completion.RetryDecision, string) {
	obs := withEnds(observe(w.pol, allocs, w.version, nil), ends)
	var b strings.Builder
	for _, o := range obs {
		fmt.Fprintf(&b, "%s-%d=%s;", o.Role, o.Index, o.State)
	}
	v, retry := snapshotVerdict(w.pol, obs, w.m.Attempt(), w.m.Retries())
	return v, retry, b.String()
}

// NewInTask builds a driver that talks to the Task API socket of the task
// it runs in, or to NOMAD_ADDR when the task has no socket (inTaskClient:
// the socket wins, since a raw_exec task inherits its client agent's
// environment, whose NOMAD_ADDR may name another cluster, where this job
// is "not found"; a CI run of integration/nomadacl hit exactly that).
func NewInTask() (*Driver, error) {
	c, err := inTaskClient()
	if err != nil {
		return nil, err
	}
	d, _ := New(drivers.Config{}, false)
	d.client, d.inTask = c, true
	return d, nil
}
