package completion

import (
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// The attempt state machine: the one loop every Go target runs around an
// attempt of a job. It is pure: a driver reports what happened (Observe a
// task event, Tick the clock, Stop on the user's request, Ended once every
// process of the attempt is gone) and executes the Actions it gets back
// (start a task again, stop tasks, report the verdict, run the job again).
// It never sleeps and reads no clock of its own: every time it uses comes in
// an event or a tick, so tests drive it with a fake clock.
//
// The rules are those of this package (Decide, TaskRestartDecision,
// Backoff, JobRetry, Deadline); the machine only sequences them the same
// way on every target:
//   - a task that ended is first offered an in-place restart (when the
//     target lets the machine restart tasks), waiting the back-off as a
//     tick; only a task that is not restarted counts as ended;
//   - after each end the rules run; the first verdict stands (monotone),
//     and the tasks it names are stopped;
//   - once a verdict is in or a stop began, nothing restarts;
//   - the deadline (from the job's start, across attempts) and the gang
//     timeout (from the attempt's start) are ticks;
//   - when the driver reports the attempt ended, the machine retries the
//     whole job once or ends it.

// ActionKind says what a driver must do.
type ActionKind string

const (
	// ActRestart: start Tasks again, in place (same attempt).
	ActRestart ActionKind = "restart"
	// ActBackoff: Tasks ended and will be restarted after Wait (a later
	// Tick returns the ActRestart); nothing to do but report it.
	ActBackoff ActionKind = "backoff"
	// ActStop: stop Tasks now (a task waiting to restart is stopped at
	// once: nothing runs). Tasks the machine already marked Stopped
	// (waiting ones) are listed in Cancelled.
	ActStop ActionKind = "stop"
	// ActVerdict: the attempt's verdict is in (Verdict; Retry says what
	// will follow once the attempt ended, unless Final).
	ActVerdict ActionKind = "verdict"
	// ActRetry: the attempt is over; run the whole job again (Retry),
	// then call NewAttempt.
	ActRetry ActionKind = "retry"
	// ActEnd: the job is over with Verdict; Retry says why it is not run
	// again.
	ActEnd ActionKind = "end"
	// ActKillRestart: stop Tasks now as ActStop does (SIGTERM, then the
	// grace) and report their ends as usual; the machine answers each
	// end with the ActRestart that starts the task again in place,
	// uncounted, and judges nothing on it. The running siblings of a
	// task that a Volcano RestartTask policy restarts (machine_vtask.go);
	// only a target that lets the machine restart tasks
	// (RestartInPlace) ever gets it.
	ActKillRestart ActionKind = "kill-restart"
)

// Action is one thing for the driver to do.
type Action struct {
	Kind  ActionKind
	Tasks []TaskRef
	// Cancelled (ActStop): tasks that were waiting to restart and are now
	// Stopped, with the exit code of their last run.
	Cancelled []TaskRef
	// ExitCode (ActRestart, ActBackoff): the exit code of the run that
	// ended; Wait (ActBackoff): the back-off.
	ExitCode int
	Wait     time.Duration
	Verdict  Verdict
	Retry    RetryDecision
	// Final (ActVerdict, ActEnd): the verdict is never retried (deadline,
	// stopped).
	Final bool
	// Reason is human text: why (restart rule, stop cause).
	Reason string
}

// TaskEvent is one change of one task, as the driver observed it.
type TaskEvent struct {
	TaskRef
	// State: Running when the task (re)started; a terminal state when it
	// ended (Stopped when it ended because it was stopped).
	State    State
	ExitCode int
	Time     time.Time
	// Seq orders ends (Task.Seq); 0 = the machine numbers ends in the
	// order it observes them.
	Seq int64
}

// MachineConfig is how a target runs the machine.
type MachineConfig struct {
	// Start is when the job started: the deadline runs from it across
	// attempts. AttemptStart is when the current attempt started (the
	// gang timeout runs from it); zero = Start.
	Start, AttemptStart time.Time
	// Attempt and Retries resume a job watched before (Nomad keeps them
	// in job meta): the attempt number and the Counted retries so far.
	Attempt, Retries int
	// GangTimeout > 0: the attempt fails when not every task was observed
	// within it (Nomad places what fits and queues the rest).
	GangTimeout time.Duration
	// RestartInPlace: the machine decides in-place restarts (local, the
	// plugin example). False when the target restarts tasks itself (the
	// restart loop inside Nomad and Slurm tasks) and reports a task
	// ended only once its restarts are over.
	RestartInPlace bool
	// Backoff is the restart back-off (zero value: KubeletBackoff).
	Backoff Backoff
}

// mtask is the machine's record of one task.
type mtask struct {
	Task
	started  time.Time // when the current run started
	streak   int       // Backoff streak
	due      time.Time // restart due (waiting) when non-zero
	endedAt  time.Time // when its last end was observed
	fireAt   time.Time // when the policy action its end held fires (delayed.go)
	stopping bool      // the machine asked to stop it
	// recycle: stopped by ActKillRestart (its task's RestartTask, by
	// recycleBy): its next end restarts it (machine_vtask.go); vtask: the
	// restart it waits for (due) is a RestartTask's, which restarts its
	// siblings with it
	recycle   bool
	recycleBy TaskRef
	vtask     bool
	seen      bool // the driver reported it at least once
	idx       int  // position in Machine.order
}

// Machine is the attempt state machine of one job (see above).
type Machine struct {
	pol    Policy
	job    *jobs.Job
	cfg    MachineConfig
	order  []TaskRef
	tasks  map[TaskRef]*mtask
	seq    int64
	att    int
	tries  int
	start  time.Time // of the attempt
	v      *Verdict  // the attempt's verdict, once in
	final  bool      // v is never retried
	user   bool      // the user asked to stop the attempt
	dlDone bool      // the deadline fired
	over   bool      // ActRetry or ActEnd given for this attempt

	// Kept as events come, so that one event costs O(roles) rule work
	// and O(log n) bookkeeping, not a look at every task (machine_inc.go).
	rp       replay  // the rules' replay of this attempt's ends
	tl       tally   // counts over the tasks
	due      dueHeap // tasks waiting to restart, by due time
	pooled   bool    // TF/PyTorch: restarts count job-wide (RestartsSoFar)
	restarts int     // Counted in-place restarts this attempt, job-wide
	// Volcano: Counted in-place restarts of the kubelet's this attempt,
	// per role (VolcanoRestartCounter); vcPolicy: the policies' in-place
	// restarts (RestartPod, RestartTask) of every attempt, never reset:
	// with tries they make the job's RetryCount (VolcanoRetryCount)
	vcRestarts map[string]int
	vcPolicy   int
	volcano    bool
	// held: tasks whose end holds a policy action until fireAt (Tick)
	held []*mtask
}

// NewMachine starts the machine on attempt cfg.Attempt of pol's job.
func NewMachine(pol Policy, cfg MachineConfig) *Machine {
	if cfg.Backoff == (Backoff{}) {
		cfg.Backoff = KubeletBackoff
	}
	if cfg.AttemptStart.IsZero() {
		cfg.AttemptStart = cfg.Start
	}
	m := &Machine{pol: pol, job: pol.Job(), cfg: cfg, att: cfg.Attempt, tries: cfg.Retries}
	k := KindOf(m.job)
	m.pooled = k == jobs.CompletionTF || k == jobs.CompletionPyTorch
	m.volcano = k == jobs.CompletionVolcano && m.job.Extras.Volcano != nil
	for _, r := range m.job.Roles {
		for i := range r.Instances {
			m.order = append(m.order, TaskRef{Role: r.Name, Index: i})
		}
	}
	m.reset(cfg.AttemptStart)
	return m
}

func (m *Machine) reset(now time.Time) {
	m.tasks = make(map[TaskRef]*mtask, len(m.order))
	for i, ref := range m.order {
		m.tasks[ref] = &mtask{Task: Task{TaskRef: ref, State: Pending}, idx: i}
	}
	m.start, m.v, m.final, m.user, m.over = now, nil, false, false, false
	m.rp, m.tl, m.due, m.restarts, m.vcRestarts = replay{}, tally{}, nil, 0, map[string]int{}
	m.held = nil
}

// NewAttempt begins the next attempt after ActRetry; attempt and retries
// (what Retries reported) are set when the driver learnt them elsewhere
// (job meta, another watcher retried first), else pass -1 to count on.
func (m *Machine) NewAttempt(now time.Time, attempt, retries int) {
	if attempt >= 0 {
		// retries holds a Volcano Job's whole RetryCount (Retries)
		m.att, m.tries, m.vcPolicy = attempt, retries, 0
	} else {
		m.att++
	}
	m.reset(now)
}

// Attempt is the current attempt number (0-based); Retries the Counted
// retries so far, for a Volcano Job its whole RetryCount (policy restarts
// in place included: VolcanoRetryCount), which MachineConfig.Retries and
// NewAttempt take back.
func (m *Machine) Attempt() int { return m.att }
func (m *Machine) Retries() int { return m.retriesSoFar() }

// AddPolicyRestarts counts n in-place restarts by a Volcano Job's
// RestartPod or RestartTask policies that the target made inside its
// tasks (RestartInPlace false: the Nomad restart loop), which the machine
// never saw, into the job's RetryCount before Ended decides a RestartJob
// (VolcanoRetryCount). Other jobs have no such shared count.
func (m *Machine) AddPolicyRestarts(n int) {
	if m.volcano && n > 0 && !m.over {
		m.vcPolicy += n
	}
}

// Verdict is the attempt's verdict once in.
func (m *Machine) Verdict() (Verdict, bool) {
	if m.v == nil {
		return Verdict{}, false
	}
	return *m.v, true
}

// Stopping reports whether the machine asked to stop ref (its end is then
// Stopped, not a failure).
func (m *Machine) Stopping(ref TaskRef) bool {
	t := m.tasks[ref]
	return t != nil && t.stopping
}

// Tasks is the observed state of every task, in role order then index.
func (m *Machine) Tasks() []Task {
	out := make([]Task, len(m.order))
	for i, ref := range m.order {
		out[i] = m.tasks[ref].Task
	}
	return out
}

// ending: a verdict is in or a stop began; nothing restarts any more.
func (m *Machine) ending() bool { return m.v != nil || m.user }
