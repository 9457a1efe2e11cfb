package nomad

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// A Volcano Job's policy restarts in place, job-wide, while the attempt
// runs. Each task's restart loop (sh/restart-loop.sh) restarts its own
// command for a RestartPod or RestartTask policy and records each such
// restart in vrestartsFile in its task directory; it can see neither the
// other tasks' restarts nor their processes. The watcher (run's and the
// controller's), for a job whose tasks can restart so
// (policyRestartsPossible), reads every running allocation's record every
// livePoll through Nomad's fs API (and once more after it ended) and does
// what Volcano's controller does with the one job (@v1.16.0-alpha.1):
//   - state/running.go Execute increments status.retryCount once per
//     RestartPod or RestartTask action, from whichever pod, and
//     restarting.go restartingUpdateStatus fails the job once RetryCount ≥
//     maxRetry: the watcher adds the records to the machine's RetryCount
//     (AddPolicyRestarts) and, when the seed (the meta's jobshift_retries)
//     plus the attempt's records reach maxRetry, gives the machine the end
//     of the task whose restart did it (completion.VolcanoRetryExhausted),
//     whose policy then fails the job as when the loop itself refuses
//     (volcanoAct: "maxRetry is reached"); that task's end marker and the
//     verdict are written before the job is stopped (markExhausted,
//     recordFirst);
//   - job_controller_actions.go killPods with TargetTypeTask kills every pod
//     of the task for a RestartTask, TargetTypePod only the failed one: for
//     a RestartTask record the watcher restarts the main task of every
//     other allocation of the role, in this attempt, that runs since before
//     the action (completion.VolcanoRestartTaskAt), through Nomad's task
//     restart (UserPolicy: alloc-lifecycle). Nomad kills the task with its
//     kill signal, which the sibling's loop takes as a stop (no restart, no
//     record, no finisher), and starts it again from its command in the
//     same task directory (a docker task in a new container); the restart
//     does not count against the group's restart policy
//     (client/allocrunner/taskrunner lifecycle.go Restart → restarts.go
//     SetRestartTriggered(false), Nomad v1.11.3). A sibling that had ended
//     keeps its end: Nomad restarts only a running task.
//
// It keeps no state that matters across watchers, as the controller
// requires: the RetryCount is re-read from the records, and a sibling is
// restarted only when it runs since before the action (its task's
// StartedAt, LastRestart and "Restart Signaled" event, its own loop's
// restarts), so a restarted watcher, or run's and the controller's
// watching one job, do not restart it again once Nomad shows the first
// restart (the client's state updates reach the server within about a
// second). The times compared are the clients' clocks (the loop's record,
// Nomad's task states): clients whose clocks differ by more than the time
// between a sibling's start and the failure may restart it when Volcano
// would not, or not when it would; so may a container whose date has no
// %N (its records are in whole seconds).
//
// Nomad's fs API refuses a task's secrets/ and private/ directories to
// every token (client/allocdir/alloc_dir.go ReadAt, Nomad v1.11.3) and any
// path a symlink leads out of the allocation directory
// (helper/escapingfs PathEscapesAllocDir): read-fs lets the user read what
// their own tasks could print to their logs anyway. A token without it
// (a policy older than this) gets 403: the watcher then says so once and
// counts the lines the loop prints to stderr at the attempt's end only
// (retrycount.go), as before; with task_logs = false there are none.
//
// Without a watcher (a converted job run with `nomad job run`, its in-job
// finishers, whose workload identity may read neither files nor logs)
// each task counts only its own restarts from the seed and a RestartTask
// restarts only the failed task, as a RestartJob needs a watcher too.

// vrestartsFile is the loop's record, one line per policy restart: the
// end of the run that failed (ms since the epoch, the client's clock),
// "pod" or "task" (RestartPod, RestartTask: completion.VolcanoRestartTarget,
// the shell's _r_vtask), the exit code, and the wait before the next run
// (ms).
const vrestartsFile = "jobshift-vrestarts"

// livePoll is how often the watcher reads the records while an attempt
// of such a job runs (only those jobs pay for it), one read per running
// task; pollEach spaces the reads of a large job (one per 10 ms: a
// 1,000-task job is read every 10 s).
const (
	livePoll = 2 * time.Second
	pollEach = 10 * time.Millisecond
)

// liveRestarts is the watcher's view of the attempt's policy restarts.
type liveRestarts struct {
	next time.Time
	// recs: each allocation's records so far (a file only grows)
	recs map[string][]completion.PolicyRestart
	// added: the records given to the machine's RetryCount
	added int
	// refused: the token may not read files (no read-fs): stderr lines
	// at the attempt's end only
	refused bool
	// ended: the machine was given the end that exhausted maxRetry
	ended bool
	// acted: RestartTask records whose siblings were restarted, by
	// allocation ID and line
	acted map[string]bool
	// final: allocations read after they ended (nothing more to come)
	final map[string]bool
}

func newLiveRestarts() *liveRestarts {
	return &liveRestarts{recs: map[string][]completion.PolicyRestart{}, acted: map[string]bool{}, final: map[string]bool{}}
}

func (lr *liveRestarts) all() []completion.PolicyRestart {
	var out []completion.PolicyRestart
	for _, rs := range lr.recs {
		out = append(out, rs...)
	}
	return out
}

// parseVRestarts reads the records of task ref's loop; a line not yet
// ended with its newline (being written) and malformed lines are skipped.
func parseVRestarts(ref jobs.TaskRef, b []byte) []completion.PolicyRestart {
	var out []completion.PolicyRestart
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		f := strings.Fields(string(b[:i]))
		b = b[i+1:]
		if len(f) != 4 {
			continue
		}
		at, err1 := strconv.ParseInt(f[0], 10, 64)
		code, err2 := strconv.Atoi(f[2])
		wait, err3 := strconv.ParseInt(f[3], 10, 64)
		action := map[string]string{"pod": completion.ActionRestartPod, "task": completion.ActionRestartTask}[f[1]]
		if err1 != nil || err2 != nil || err3 != nil || action == "" || wait < 0 {
			continue
		}
		out = append(out, completion.PolicyRestart{Task: ref, At: time.UnixMilli(at), Code: code, Action: action, Wait: time.Duration(wait) * time.Millisecond})
	}
}

// fsRefused: Nomad's ACL refusal, as the API client quotes its status or
// as the client's file API answers it in a 200's body.
func fsRefused(s string) bool {
	return strings.Contains(s, "response code: 403") || strings.Contains(strings.ToLower(s), "permission denied")
}

// readVRestarts reads allocation a's records; refused when the token may
// not read its files. A file not there yet (no restart so far) is none.
func readVRestarts(ctx context.Context, c *api.Client, a *api.AllocationListStub, ref jobs.TaskRef) (recs []completion.PolicyRestart, refused bool, err error) {
	q := (&api.QueryOptions{Namespace: a.Namespace}).WithContext(ctx)
	r, err := c.AllocFS().Cat(&api.Allocation{ID: a.ID, Namespace: a.Namespace}, MainTask+"/local/"+vrestartsFile, q)
	if err != nil {
		return nil, fsRefused(err.Error()), err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, false, err
	}
	if fsRefused(string(b)) {
		return nil, true, fmt.Errorf("%s", bytes.TrimSpace(b))
	}
	return parseVRestarts(ref, b), false, nil
}

// refOf is the task allocation a runs.
func (w *watcher) refOf(a *api.AllocationListStub) (jobs.TaskRef, bool) {
	idx, ok := allocIndex(a.Name)
	if !ok {
		return jobs.TaskRef{}, false
	}
	for _, r := range w.pol.Roles {
		if groupName(r.Name) == a.TaskGroup {
			return jobs.TaskRef{Role: r.Name, Index: idx}, true
		}
	}
	return jobs.TaskRef{}, false
}

// readRecords reads the records of this attempt's allocations: running
// ones, and once more each that ended since (a task may end right after
// its restart: its record is then read only after its end), or every one
// when all; false when the token may not read files (said once).
func (w *watcher) readRecords(ctx context.Context, out chan<- drivers.Event, allocs []*api.AllocationListStub, all bool) bool {
	lr := w.lr
	for _, a := range allocs {
		ref, ok := w.refOf(a)
		if a.JobVersion != w.version || !ok || a.ClientStatus == "pending" || !all && lr.final[a.ID] {
			continue
		}
		if a.ClientStatus != "running" {
			lr.final[a.ID] = true
		}
		recs, refused, err := readVRestarts(ctx, w.c, a, ref)
		if refused {
			lr.refused = true
			w.emit(ctx, out, drivers.Event{Message: "nomad: the token may not read the tasks' files (read-fs; `jobshift nomad-acl` writes a policy with it): " +
				"the tasks' in-place restarts by RestartPod and RestartTask policies are counted from their logs when the attempt ends, " +
				"so tasks may together pass maxRetry in place and a RestartTask restarts only the failed task: " + err.Error()})
			return false
		}
		if err == nil && len(recs) >= len(lr.recs[a.ID]) {
			lr.recs[a.ID] = recs
		}
	}
	return true
}

// livePolicyRestarts reads the records (every livePoll) while no verdict
// is in, gives the machine the new ones and, once they exhaust maxRetry,
// the end that fails the job; it restarts the siblings of RestartTask
// records. It returns the machine's actions.
func (w *watcher) livePolicyRestarts(ctx context.Context, out chan<- drivers.Event, allocs []*api.AllocationListStub, now time.Time) []completion.Action {
	lr := w.lr
	if lr == nil || lr.refused || now.Before(lr.next) {
		return nil
	}
	if _, decided := w.m.Verdict(); decided {
		return nil
	}
	lr.next = now.Add(max(livePoll, time.Duration(len(allocs))*pollEach))
	if !w.readRecords(ctx, out, allocs, false) {
		return nil
	}
	all := lr.all()
	seed := w.m.Retries() - lr.added
	if n := len(all) - lr.added; n > 0 {
		w.m.AddPolicyRestarts(n)
		lr.added += n
	}
	if r, ok := completion.VolcanoRetryExhausted(w.pol.Job(), seed, all); ok && !lr.ended {
		lr.ended = true
		w.emit(ctx, out, drivers.Event{Message: fmt.Sprintf("Volcano RetryCount %d reached maxRetry %d with the %s of %s-%d (exit code %d) in place: the job Failed (state/restarting.go restartingUpdateStatus)",
			seed+len(all), w.pol.Job().Extras.Volcano.MaxRetry, r.Action, r.Task.Role, r.Task.Index, r.Code)})
		w.markExhausted(ctx, out, r)
		acts := w.m.ObserveAll([]completion.TaskEvent{{TaskRef: r.Task, State: completion.Failed, ExitCode: r.Code, Time: r.At}})
		return w.recordFirst(ctx, out, append(acts, w.m.Tick(now)...))
	}
	w.restartTasks(ctx, out, allocs, now)
	return nil
}

// markExhausted writes the end marker (ends.go) of the task whose restart
// exhausted maxRetry, with the exit code of the run that failed, before
// the job is stopped, and keeps it in the verdict (keepEnds): on Volcano
// that pod failed and was not created again, and its task reads so after
// the stop (ownEnds), not as stopped.
func (w *watcher) markExhausted(ctx context.Context, out chan<- drivers.Event, r completion.PolicyRestart) {
	if !endsFit(w.id) {
		return
	}
	for id, recs := range w.lr.recs {
		if len(recs) > 0 && recs[0].Task == r.Task {
			at := time.Now()
			if err := writeEnd(ctx, w.c, w.id, id, r.Code); err != nil {
				w.emit(ctx, out, drivers.Event{Message: "nomad: " + err.Error()})
				return
			}
			w.keepEnds = map[string]endMark{id: {code: r.Code, at: at}}
			return
		}
	}
}

// recordFirst records the verdict among acts, when no retry follows it,
// before it stops the job (act would stop it first and record once every
// task ended): the job's poststop finishers then find it recorded, where
// they would judge a job of killed tasks stopped by the user (their
// snapshot shows no failure: the failed run was restarted in place). The
// other acts are returned for act. livePolicyRestarts gives it the acts
// of the exhausting end; step those of a later tick when the policy's
// timeout held that end's action.
func (w *watcher) recordFirst(ctx context.Context, out chan<- drivers.Event, acts []completion.Action) []completion.Action {
	for _, a := range acts {
		if a.Kind != completion.ActVerdict || a.Retry.Retry || a.Verdict.Phase == completion.PhaseStopped || w.recorded(ctx) != nil {
			continue
		}
		v := a.Verdict
		w.record(ctx, &drivers.Result{Phase: v.Phase, ExitCode: v.ExitCode, Reason: v.Reason, Attempts: w.m.Attempt() + 1})
		w.emit(ctx, out, drivers.Event{Message: fmt.Sprintf("%s: %s; stopping the job", v.Phase, v.Reason)})
		if _, _, err := w.c.Jobs().Deregister(w.id, false, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			w.emit(ctx, out, drivers.Event{Message: "stopping: " + err.Error()})
		}
		return nil
	}
	return acts
}

// sibling is an allocation of the attempt as a RestartTask sees it.
type sibling struct {
	AllocID, Namespace string
	Ref                jobs.TaskRef
	// Running: its main task runs (Nomad restarts only a running task)
	Running bool
	// Started is the latest (re)start of its task known: Nomad's
	// StartedAt and LastRestart, a restart asked of Nomad ("Restart
	// Signaled"), and its own loop's restarts in place
	Started time.Time
}

// siblingsOf is the attempt's allocations as siblings.
func (w *watcher) siblingsOf(allocs []*api.AllocationListStub) []sibling {
	var out []sibling
	for _, a := range allocs {
		ref, ok := w.refOf(a)
		if a.JobVersion != w.version || !ok {
			continue
		}
		s := sibling{AllocID: a.ID, Namespace: a.Namespace, Ref: ref}
		if ts := a.TaskStates[MainTask]; ts != nil {
			s.Running = ts.State == "running" && a.ClientStatus == "running"
			s.Started = later(ts.StartedAt, ts.LastRestart)
			for _, e := range ts.Events {
				if e.Type == api.TaskRestartSignal {
					s.Started = later(s.Started, time.Unix(0, e.Time))
				}
			}
		}
		for _, r := range w.lr.recs[a.ID] {
			s.Started = later(s.Started, r.At.Add(r.Wait))
		}
		out = append(out, s)
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// restartTaskTargets are the siblings a RestartTask of role, from
// allocation from, acted on at at, restarts: every other allocation of
// the role whose task runs since before at (killPods TargetTypeTask).
func restartTaskTargets(from, role string, at time.Time, sibs []sibling) []sibling {
	var out []sibling
	for _, s := range sibs {
		if s.AllocID != from && s.Ref.Role == role && s.Running && s.Started.Before(at) {
			out = append(out, s)
		}
	}
	return out
}

// restartTasks restarts the siblings of every RestartTask record whose
// action is due (after its policy's timeout) and not acted on by this
// watcher yet.
func (w *watcher) restartTasks(ctx context.Context, out chan<- drivers.Event, allocs []*api.AllocationListStub, now time.Time) {
	var sibs []sibling
	for id, recs := range w.lr.recs {
		for i, r := range recs {
			key := id + "/" + strconv.Itoa(i)
			at := completion.VolcanoRestartTaskAt(w.pol.Job(), r)
			if at.IsZero() || w.lr.acted[key] || now.Before(at) {
				continue
			}
			w.lr.acted[key] = true
			if sibs == nil {
				sibs = w.siblingsOf(allocs)
			}
			targets := restartTaskTargets(id, r.Task.Role, at, sibs)
			for _, m := range w.restartSiblings(ctx, targets) {
				w.emit(ctx, out, drivers.Event{Message: fmt.Sprintf("RestartTask (exit code %d of %s-%d): %s", r.Code, r.Task.Role, r.Task.Index, m)})
			}
		}
	}
}

// restartSiblings asks Nomad to restart each target's main task, at once
// (each request returns once the task was killed); what happened to
// each, in order.
func (w *watcher) restartSiblings(ctx context.Context, targets []sibling) []string {
	msgs := make([]string, len(targets))
	var wg sync.WaitGroup
	for i, s := range targets {
		wg.Go(func() {
			q := (&api.QueryOptions{Namespace: s.Namespace}).WithContext(ctx)
			err := w.c.Allocations().Restart(&api.Allocation{ID: s.AllocID, Namespace: s.Namespace}, MainTask, q)
			msgs[i] = fmt.Sprintf("restarted %s-%d in place, as Volcano kills every pod of the task (job_controller_actions.go killPods)", s.Ref.Role, s.Ref.Index)
			if err != nil {
				msgs[i] = fmt.Sprintf("restarting %s-%d: %v", s.Ref.Role, s.Ref.Index, err)
			}
		})
	}
	wg.Wait()
	return msgs
}
