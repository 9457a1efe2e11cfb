package completion

import (
	"fmt"
	"time"
)

// A Volcano RestartTask restarts every pod of the task, not only the one
// whose end matched the policy: state/running.go Execute passes the
// action's target to KillTarget, and killPods with TargetTypeTask kills
// every pod of jobInfo.Pods[task], whatever its phase, which the
// controller then creates again; status.RetryCount grows once, for the
// action (job_controller_actions.go killTarget, killPods
// @v1.16.0-alpha.1). RestartPod kills only the pod (TargetTypePod).
//
// The machine does it when the task whose end a RestartTask matched
// starts again (at once, or when its wait is over: the back-off, or the
// policy's timeout, which delays the whole action on Volcano): every
// other task of its role that has not ended is restarted too, so the
// task's pods start together. One that runs is stopped (ActKillRestart)
// and its end answered with an ActRestart; one waiting to restart (a
// back-off) restarts at once. These restarts are not counted (not in
// RetryCount, not in the kubelet's count of the task: they are the one
// action's), the end they cause is no PodFailed and decides nothing, and
// the restarted task's back-off starts over (a new pod has no
// CrashLoopBackOff). Deviations: a sibling that already ended (Succeeded,
// Failed, or stopped) keeps its end, on every target, where Volcano
// would create its pod again: a terminal Nomad allocation cannot be
// restarted, and the targets keep one rule; and the siblings restart
// when the failed task does, after jobshift's back-off of that task when
// it is longer than the policy's timeout, where Volcano kills them when
// the action runs.

// restartTask restarts the siblings of t, which a RestartTask restarts
// now; skip holds tasks restarting in the same breath (a Tick's due
// restarts), which must not be stopped again.
func (m *Machine) restartTask(t *mtask, skip map[*mtask]bool) []Action {
	r := m.job.Role(t.Role)
	if r == nil {
		return nil
	}
	why := fmt.Sprintf("Volcano RestartTask after %s-%d's exit code %d restarts every pod of task %s", t.Role, t.Index, t.ExitCode, t.Role)
	var acts []Action
	kill := Action{Kind: ActKillRestart, Reason: why}
	// a role's tasks are contiguous in m.order, t at t.idx
	first := t.idx - t.Index
	for i := first; i < first+r.Instances && i < len(m.order); i++ {
		s := m.tasks[m.order[i]]
		if s == t || skip[s] || !s.seen || s.State == Pending || s.State.Terminal() || s.stopping || s.recycle {
			continue
		}
		s.streak = 0
		if !s.due.IsZero() {
			// waiting for a restart of its own (its heap entry is
			// stale now): it starts with the task
			s.due, s.vtask = time.Time{}, false
			acts = append(acts, Action{Kind: ActRestart, Tasks: []TaskRef{s.TaskRef}, ExitCode: s.ExitCode, Reason: why})
			continue
		}
		s.recycle, s.recycleBy = true, t.TaskRef
		kill.Tasks = append(kill.Tasks, s.TaskRef)
	}
	if len(kill.Tasks) > 0 {
		acts = append(acts, kill)
	}
	return acts
}

// restartSibling answers the end e of t, stopped by ActKillRestart: it
// starts again in place, uncounted, with a fresh back-off.
func (m *Machine) restartSibling(t *mtask, e TaskEvent) []Action {
	t.State, t.ExitCode, t.streak = Running, e.ExitCode, 0
	return []Action{{Kind: ActRestart, Tasks: []TaskRef{t.TaskRef}, ExitCode: e.ExitCode,
		Reason: fmt.Sprintf("stopped by the Volcano RestartTask of %s-%d: every pod of the task restarts", t.recycleBy.Role, t.recycleBy.Index)}}
}
