package completion

import (
	"fmt"
	"sort"

	"github.com/jobshift/jobshift/jobs"
)

// Decide returns the verdict on the current attempt of job, given the state
// of its tasks (any order; tasks of the job that are missing count as
// Pending, tasks the job does not have are ignored).
//
// The platforms evaluate their rules each time a task ends, and the first
// rule that fires decides (FrameworkController syncTaskState; the Kubeflow
// operators' UpdateJobStatus on each pod change). Decide replays the terminal
// tasks in Task.Seq order and applies the rules after each one, so the
// verdict is monotone: once succeeded or failed, later task ends (stragglers
// under cleanPodPolicy None, a process that exited while being stopped)
// never change it.
func Decide(job *jobs.Job, tasks []Task) Verdict {
	if job == nil {
		return Verdict{Phase: PhaseRunning, Reason: "no job"}
	}
	a := newAttempt(job, tasks)
	r := rulesFor(job)
	for _, s := range a.steps() {
		if v, ok := a.step(r, s); ok {
			return a.finish(v)
		}
	}
	return Verdict{Phase: PhaseRunning, Reason: fmt.Sprintf("%d of %d tasks ended", len(a.ended), len(a.order))}
}

// rules is one platform's completion rules.
type rules interface {
	// onEnd is called after t ended (in replay order); ok when a rule fired.
	onEnd(a *attempt, t Task) (v decided, ok bool)
	// onAllEnded is called when every task ended and no rule fired; last is
	// the task that ended last.
	onAllEnded(a *attempt, last Task) decided
}

// decided is a verdict before Stop/Keep are filled in.
type decided struct {
	Verdict
	// keep: leave non-terminal tasks running (Kubeflow cleanPodPolicy None).
	keep bool
}

func rulesFor(job *jobs.Job) rules {
	switch KindOf(job) {
	case jobs.CompletionPAI:
		return paiRules{}
	case jobs.CompletionTF:
		if chiefDecides(job) {
			return chiefRules{kind: "TFJob"}
		}
		return tfRules{}
	case jobs.CompletionPyTorch:
		if chiefDecides(job) {
			return chiefRules{kind: "PyTorchJob"}
		}
		return pytorchRules{}
	case jobs.CompletionMPI:
		return mpiRules{}
	case jobs.CompletionJobSet:
		return jobsetRules{}
	case jobs.CompletionVolcano:
		if job.Extras.Volcano != nil {
			return volcanoRules{}
		}
	}
	return genericRules{}
}

// KindOf is the job's completion kind, inferred from its format when the
// reader left it empty ("" for formats without rules: generic rules apply).
func KindOf(job *jobs.Job) jobs.CompletionKind {
	if job.Completion.Kind != "" {
		return job.Completion.Kind
	}
	switch job.Source.Format {
	case jobs.FormatPAIv1, jobs.FormatPAIv2:
		return jobs.CompletionPAI
	case jobs.FormatTFJob:
		return jobs.CompletionTF
	case jobs.FormatPyTorchJob:
		return jobs.CompletionPyTorch
	case jobs.FormatMPIJob:
		return jobs.CompletionMPI
	case jobs.FormatTrainJob:
		return jobs.CompletionJobSet
	case jobs.FormatVolcano:
		return jobs.CompletionVolcano
	}
	return ""
}

// attempt is the replay state of one attempt.
type attempt struct {
	job   *jobs.Job
	order []TaskRef        // every task of the job, role order then index
	tasks map[TaskRef]Task // observed state (missing tasks: Pending)
	ended map[TaskRef]bool // replayed so far
	roles map[string]*jobs.Role
	// counts[role][state]: replayed tasks of role in state; kept as the
	// replay goes so each rule check is O(roles), not O(tasks).
	counts map[string]map[State]int
	w0     *TaskRef // task 0 of the first Worker role (worker0)
	// held (Volcano): ends whose matched policy's action waits for its
	// timeout, in end order; heldLast: the end just replayed is one.
	held     []heldAct
	heldLast bool
}

func newAttempt(job *jobs.Job, tasks []Task) *attempt {
	a := &attempt{job: job, tasks: map[TaskRef]Task{}, ended: map[TaskRef]bool{},
		roles: map[string]*jobs.Role{}, counts: map[string]map[State]int{}}
	for _, r := range job.Roles {
		if r == nil {
			continue
		}
		if _, dup := a.roles[r.Name]; dup {
			continue
		}
		a.roles[r.Name], a.counts[r.Name] = r, map[State]int{}
		if a.w0 == nil && r.Instances > 0 && replicaType(r) == rtWorker {
			a.w0 = &TaskRef{Role: r.Name, Index: 0}
		}
		for k := 0; k < r.Instances; k++ {
			ref := TaskRef{Role: r.Name, Index: k}
			a.order = append(a.order, ref)
			a.tasks[ref] = Task{TaskRef: ref, State: Pending}
		}
	}
	seen := map[TaskRef]bool{}
	for _, t := range tasks {
		if _, ok := a.tasks[t.TaskRef]; !ok || seen[t.TaskRef] {
			continue // not a task of this job, or a duplicate: first wins
		}
		seen[t.TaskRef] = true
		a.tasks[t.TaskRef] = t
	}
	return a
}

// endOrder lists the terminal tasks in replay order.
func (a *attempt) endOrder() []TaskRef {
	var out []TaskRef
	for _, ref := range a.order {
		if a.tasks[ref].State.Terminal() {
			out = append(out, ref)
		}
	}
	// a.order is already role order then index: a stable sort on Seq keeps
	// that as the tie-break.
	sort.SliceStable(out, func(i, j int) bool { return a.tasks[out[i]].Seq < a.tasks[out[j]].Seq })
	return out
}

func (a *attempt) allEnded() bool { return len(a.ended) == len(a.order) }

// end replays the end of task ref.
func (a *attempt) end(ref TaskRef) {
	a.ended[ref] = true
	a.counts[ref.Role][a.tasks[ref].State]++
}

// count is how many replayed tasks of role are in state s.
func (a *attempt) count(role string, s State) int { return a.counts[role][s] }

// countAll is how many replayed tasks are in state s.
func (a *attempt) countAll(s State) int {
	n := 0
	for _, c := range a.counts {
		n += c[s]
	}
	return n
}

// finish fills in Stop/Keep: every task not terminal in the observed state.
func (a *attempt) finish(d decided) Verdict {
	v := d.Verdict
	for _, ref := range a.order {
		if a.tasks[ref].State.Terminal() {
			continue
		}
		if d.keep {
			v.Keep = append(v.Keep, ref)
		} else {
			v.Stop = append(v.Stop, ref)
		}
	}
	return v
}

// stopped is the verdict when every task ended, some of them Stopped, and no
// rule fired: the job was stopped from outside.
func (a *attempt) stopped() (decided, bool) {
	n := a.countAll(Stopped)
	if n == 0 {
		return decided{}, false
	}
	return decided{Verdict: Verdict{Phase: PhaseStopped, ExitCode: stoppedExitCode,
		Reason: fmt.Sprintf("stopped: every task ended, %d of them stopped from outside the job (jobshift stop, the engine or a signal), before any completion rule fired", n)}}, true
}

// UserStopped is the verdict of a job stopped from outside (jobshift stop,
// Ctrl-C, nomad job stop, scancel) once its tasks ended, the same on every
// target: a verdict a rule had already given stands (a job that had
// failed stays failed), otherwise the job is stopped, exit 143.
func UserStopped(job *jobs.Job, tasks []Task) Verdict {
	v := Decide(job, tasks)
	if !v.Phase.Done() || v.Phase == PhaseStopped || v.Phase == PhaseSucceeded && v.Trigger == nil {
		return Verdict{Phase: PhaseStopped, ExitCode: StoppedExitCode, Reason: "stopped by the user"}
	}
	return v
}

// StoppedExitCode is the exit code of a stopped job on every target.
const StoppedExitCode = stoppedExitCode

// Exit codes of verdicts that no task's exit code decides (README.md).
const (
	stoppedExitCode  = 143 // 128+SIGTERM, what a stopped process reports
	deadlineExitCode = 124 // what timeout(1) reports
	noRuleExitCode   = 1
)

// failCode is a failed verdict's exit code: the trigger's, never 0.
func failCode(t Task) int {
	if t.ExitCode == 0 {
		return 1
	}
	return t.ExitCode
}

func refOf(t Task) *TaskRef { r := t.TaskRef; return &r }

// genericRules: for jobs with no known completion kind. Every task must end;
// the job fails if any failed.
type genericRules struct{}

func (genericRules) onEnd(*attempt, Task) (decided, bool) { return decided{}, false }

func (genericRules) onAllEnded(a *attempt, last Task) decided {
	if d, ok := a.stopped(); ok {
		return d
	}
	for _, ref := range a.order {
		if t := a.tasks[ref]; t.State == Failed {
			return decided{Verdict: Verdict{Phase: PhaseFailed, ExitCode: failCode(t), Trigger: refOf(t),
				Reason: fmt.Sprintf("every task ended; %s-%d failed with exit code %d", t.Role, t.Index, t.ExitCode)}}
		}
	}
	return decided{Verdict: Verdict{Phase: PhaseSucceeded, Trigger: refOf(last), Reason: "every task succeeded"}}
}
