package completion

import "fmt"

// paiRules: FrameworkController's FrameworkAttemptCompletionPolicy
// (spec/pai.md §4.1; frameworkcontroller pkg/controller/controller.go,
// syncTaskState once a task is TaskCompleted). Only the ended task's own role
// is checked: failed rule first, then succeeded rule, then "all completed".
type paiRules struct{}

// Threshold reads a PAI counter (Role.MinFailed, Role.MinSucceeded) as
// stored on jobs.Role: enabled iff set and ≥ 1 (nil = null in v1 JSON, -1
// on k8s: disabled; 0 cannot survive the readers' defaults and is treated
// as disabled, like FC's "< 1").
func Threshold(p *int) (int, bool) {
	if p == nil || *p < 1 {
		return 0, false
	}
	return *p, true
}

func (paiRules) onEnd(a *attempt, t Task) (decided, bool) {
	role := a.roles[t.Role]
	switch t.State {
	case Failed:
		if min, ok := Threshold(role.MinFailed); ok {
			if n := a.count(t.Role, Failed); n >= min {
				reason := fmt.Sprintf("FailedTaskCount %d has reached MinFailedTaskCount %d in TaskRole [%s]: Triggered by Task [%s][%d]: exit code %d",
					n, min, t.Role, t.Role, t.Index, t.ExitCode)
				if rep := PAIExitCode(t.ExitCode, PAIEra(a.job)); rep != t.ExitCode {
					reason += fmt.Sprintf(" (OpenPAI would report %d)", rep)
				}
				return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t), Reason: reason}}, true
			}
		}
	case Succeeded:
		if min, ok := Threshold(role.MinSucceeded); ok {
			if n := a.count(t.Role, Succeeded); n >= min {
				return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(t),
					Reason: fmt.Sprintf("SucceededTaskCount %d has reached MinSucceededTaskCount %d in TaskRole [%s]: Triggered by Task [%s][%d]",
						n, min, t.Role, t.Role, t.Index)}}, true
			}
		}
	}
	return decided{}, false
}

func (paiRules) onAllEnded(a *attempt, last Task) decided {
	if d, ok := a.stopped(); ok {
		return d
	}
	// FC: "all tasks completed ⇒ Succeeded", even with failures below the
	// thresholds (spec/pai.md §4.1 rule 4).
	return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(last),
		Reason: fmt.Sprintf("All Tasks are completed and no user specified conditions in FrameworkAttemptCompletionPolicy have ever been triggered: TotalTaskCount: %d, FailedTaskCount: %d: Triggered by Task [%s][%d]",
			len(a.order), a.countAll(Failed), last.Role, last.Index)}}
}
