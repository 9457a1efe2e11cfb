package nomad

import (
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// allocIndex parses the index from an alloc name "<job>.<group>[<i>]".
func allocIndex(name string) (int, bool) {
	i := strings.LastIndexByte(name, '[')
	if i < 0 || !strings.HasSuffix(name, "]") {
		return 0, false
	}
	n, err := strconv.Atoi(name[i+1 : len(name)-1])
	return n, err == nil
}

// ExitNodeLost is the exit code of a task whose allocation was lost with
// its client: FrameworkController's NodeLost (-1001), which a Volcano
// Job's rules read as PodEvicted (completion.ExitHostLost).
const ExitNodeLost = completion.ExitHostLost

// observed is one task as seen in its allocation.
type observed struct {
	completion.Task
	AllocID string
	Message string
	// Started is when the server saw the main task start (zero: not yet);
	// an end marker older than it is not this task's end.
	Started time.Time
	// Killed is when Nomad began killing the main task of a task observed
	// Stopped for that kill (zero otherwise); an end marker older than it
	// is the task's own end (ownEnds).
	Killed time.Time
}

// observe maps the allocations of one job version to tasks. stopping holds
// the tasks jobshift asked to stop: their end is Stopped, not a failure.
// long: one switch over the ways an allocation's task ends, whose cases
// must be tested in this order (a lost client before a dead main task, a
// failed prestart task before the allocation's own failure).
func observe(pol completion.Policy, allocs []*api.AllocationListStub, version uint64, stopping map[jobs.TaskRef]bool) []observed {
	roleOf := map[string]string{}
	for _, r := range pol.Roles {
		roleOf[groupName(r.Name)] = r.Name
	}
	var out []observed
	for _, a := range allocs {
		if a.JobVersion != version {
			continue
		}
		role, ok := roleOf[a.TaskGroup]
		idx, ok2 := allocIndex(a.Name)
		if !ok || !ok2 {
			continue
		}
		ref := jobs.TaskRef{Role: role, Index: idx}
		o := observed{Task: completion.Task{TaskRef: ref, State: completion.Pending}, AllocID: a.ID}
		main := a.TaskStates[MainTask]
		if main != nil {
			o.Started = main.StartedAt
		}
		barrier := a.TaskStates[BarrierTask]
		psFailed := psFailedFirst(main, a.TaskStates[PSTask])
		ev := evicted(a, main)
		rendezvous := false
		switch {
		case psFailed:
			// A UAI parameter server that died by itself while its
			// training task ran: Nomad then killed the training task,
			// which is this task's failure, not a stop.
			ps := a.TaskStates[PSTask]
			o.State, o.Seq = completion.Failed, ps.FinishedAt.UnixNano()
			o.ExitCode, o.Message, _ = lastExit(ps)
			if o.ExitCode == 0 {
				o.ExitCode = 1
			}
			o.Message = "parameter server failed: " + o.Message
		case a.ClientStatus == "lost":
			// Its client is gone (host down); its task states are the
			// last the client sent ("running"). OpenPAI's NodeLost: a
			// transient platform failure, always retried (spec/pai.md
			// §4.2). Found by the fault suite's kill-host case.
			o.State, o.ExitCode, o.Seq = completion.Failed, ExitNodeLost, a.ModifyTime
			o.Message = "allocation lost: " + a.ClientDescription
		case ev:
			// Taken off its node by Nomad (a drain, a preemption): as a
			// Kubernetes drain evicts a pod, a loss of the platform's
			// like a lost client's, not a stop of the job's.
			o.State, o.ExitCode, o.Seq = completion.Failed, ExitNodeLost, a.ModifyTime
			o.Message = "allocation evicted: " + a.DesiredDescription
		case main != nil && main.State == "dead" && !main.StartedAt.IsZero():
			o.State, o.ExitCode, o.Seq = completion.Succeeded, 0, main.FinishedAt.UnixNano()
			if code, msg, ok := lastExit(main); ok {
				o.ExitCode, o.Message = code, msg
			}
			if main.Failed || o.ExitCode != 0 {
				o.State = completion.Failed
				if o.ExitCode == 0 {
					o.ExitCode = 1
				}
			}
		case main != nil && main.State == "running":
			o.State = completion.Running
		case barrier != nil && barrier.State == "dead" && barrier.Failed && !killed(barrier):
			// The rendezvous failed (timeout): the task never ran.
			// Nomad then kills the main task that never started; that
			// kill is this failure's consequence, not a stop.
			rendezvous = true
			o.State, o.Seq = completion.Failed, barrier.FinishedAt.UnixNano()
			o.ExitCode, o.Message, _ = lastExit(barrier)
			if o.ExitCode == 0 {
				o.ExitCode = 1
			}
			o.Message = "rendezvous failed: " + o.Message
		case failedBefore(a.TaskStates[InitTask]) || failedBefore(a.TaskStates[WaitTask]) || failedBefore(a.TaskStates[ScratchTask]):
			rendezvous = true
			failedPrestart(&o, a.TaskStates)
		case a.ClientStatus == "failed" || a.ClientStatus == "lost":
			o.State, o.ExitCode, o.Seq = completion.Failed, 1, a.ModifyTime
			o.Message = "allocation " + a.ClientStatus + ": " + a.ClientDescription
		case a.ClientStatus == "complete" || (main != nil && main.State == "dead"):
			// Ended before the main task started (stopped while pending).
			o.State, o.Seq = completion.Stopped, a.ModifyTime
		}
		// a task that exited 0 by itself before the stop reached it (the
		// in-job finisher decided first) succeeded
		ownSuccess := o.State == completion.Succeeded && !killed(main)
		if !ev && (o.State == completion.Failed || o.State == completion.Succeeded) && (stopping[ref] && a.DesiredStatus == "stop" && !ownSuccess || killed(main) && !psFailed && !rendezvous) {
			// Killed by jobshift or by a stop (SIGINT/SIGKILL): neither
			// outcome.
			o.State = completion.Stopped
			if k := killing(main); k != nil {
				o.Killed = time.Unix(0, k.Time)
			}
		}
		out = append(out, o)
	}
	return lostWins(out)
}

// allocMigrating is the desired description of an allocation Nomad
// stops to place it elsewhere: a node drain (StatusAllocMigrating,
// scheduler/structs/const.go, v1.11.3).
const allocMigrating = "alloc is being migrated"

// evicted: Nomad stops allocation a to move it off its node (a drain) or
// for a job of higher priority (preemption), and its main task had not
// ended by itself before.
func evicted(a *api.AllocationListStub, main *api.TaskState) bool {
	drained := a.DesiredStatus == "stop" && a.DesiredDescription == allocMigrating
	preempted := a.DesiredStatus == "evict" && a.PreemptedByAllocation != "" // AllocDesiredStatusEvict
	if !drained && !preempted {
		return false
	}
	return main == nil || main.State != "dead" || killed(main)
}

// failedPrestart observes a task whose init containers failed, or whose
// role can never start (its step order): the main task never ran (as a
// pod whose init container failed); the prestart task's exit code decides.
func failedPrestart(o *observed, states map[string]*api.TaskState) {
	pre, what := states[InitTask], "init container failed: "
	switch {
	case failedBefore(pre):
	case failedBefore(states[WaitTask]):
		pre, what = states[WaitTask], "step order: "
	default:
		// its image has no /bin/sh, or runs no root (emptydirtasks.go)
		pre, what = states[ScratchTask], "the scratch task making the emptyDirs failed: "
	}
	o.State, o.Seq = completion.Failed, pre.FinishedAt.UnixNano()
	o.ExitCode, o.Message, _ = lastExit(pre)
	if o.ExitCode == 0 {
		o.ExitCode = 1
	}
	o.Message = what + o.Message
}

// failedBefore: a prestart task that must end before the main task
// (InitTask, WaitTask, ScratchTask) ended failed by itself.
func failedBefore(t *api.TaskState) bool {
	return t != nil && t.State == "dead" && t.Failed && !killed(t)
}

// lostWins keeps one observation per task: Nomad replaces an allocation
// lost with its client (the reschedule policy does not cover lost ones) by
// a new one of the same version, new ports, a stale contract for its
// peers. The attempt failed with the lost task; the replacement is stopped
// with the attempt and never decides anything.
func lostWins(obs []observed) []observed {
	lost := map[jobs.TaskRef]bool{}
	for _, o := range obs {
		if o.ExitCode == ExitNodeLost && o.State == completion.Failed {
			lost[o.TaskRef] = true
		}
	}
	if len(lost) == 0 {
		return obs
	}
	out := obs[:0]
	for _, o := range obs {
		if !lost[o.TaskRef] || o.ExitCode == ExitNodeLost && o.State == completion.Failed {
			out = append(out, o)
		}
	}
	return out
}

// psFailedFirst: the allocation's parameter server (UAI) ended by itself
// with a failure while the training task had not ended by itself. The
// training task's own end, and a PS the leader rule stopped, are not this.
func psFailedFirst(main, ps *api.TaskState) bool {
	if ps == nil || ps.State != "dead" || !ps.Failed || killed(ps) {
		return false
	}
	return main == nil || main.State != "dead" || main.StartedAt.IsZero() || killed(main)
}

// lastExit finds the exit code of the task's last Terminated event.
func lastExit(ts *api.TaskState) (int, string, bool) {
	for i := len(ts.Events) - 1; i >= 0; i-- {
		e := ts.Events[i]
		if e.Type == api.TaskTerminated {
			if e.ExitCode == 0 && e.Signal > 0 {
				// Died of a signal (Nomad reports exit code 0 and the
				// signal): 128+n, as a shell, Kubernetes and Slurm's
				// task record report it. OpenPAI's exit-code classes
				// key on it (137 SIGKILL is transient).
				return 128 + e.Signal, e.DisplayMessage, true
			}
			return e.ExitCode, e.DisplayMessage, true
		}
		if e.Type == api.TaskDriverFailure || e.Type == api.TaskFailedValidation || e.Type == api.TaskSetupFailure || e.Type == "Template failed" {
			return 1, e.Type + ": " + e.DisplayMessage, true
		}
	}
	return 0, "", false
}

// killed reports whether Nomad killed the task (a stop), as opposed to the
// task ending by itself: a kill before its end. A stop that reaches a task
// already ended still adds its Killing event, after the Terminated one (a
// worker that had ended 0 when another's verdict stopped the job).
func killed(ts *api.TaskState) bool {
	return killing(ts) != nil
}

// killing is the Killing event that came before the task's end (killed),
// or nil.
func killing(ts *api.TaskState) *api.TaskEvent {
	if ts == nil {
		return nil
	}
	end := len(ts.Events)
	for i := len(ts.Events) - 1; i >= 0; i-- {
		if ts.Events[i].Type == api.TaskTerminated {
			end = i
			break
		}
	}
	for _, e := range ts.Events[:end] {
		if e.Type == api.TaskKilling {
			return e
		}
	}
	return nil
}
