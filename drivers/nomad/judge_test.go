package nomad

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// jtask is one task of a judge case: its role and index, and how its
// main task looks on the server.
type jtask struct {
	role  string
	index int
	how   string // "run", "exit", "killed" (stopped from outside), "lost"
	code  int
	at    int // seconds after the start: the order of ends
}

// judgeAllocs is the job's allocations (version 2) as the server shows
// them; marked: tasks that ended by themselves still show running, and
// their end is in an end marker instead (an in-task finisher's view
// before the client's update reached the server).
func judgeAllocs(tasks []jtask, marked bool) ([]*api.AllocationListStub, map[string]endMark) {
	t0 := time.Unix(100, 0)
	ends := map[string]endMark{}
	var allocs []*api.AllocationListStub
	for _, k := range tasks {
		id := fmt.Sprintf("%s-%d", k.role, k.index)
		end := t0.Add(time.Duration(k.at) * time.Second)
		st := &api.TaskState{State: "running", StartedAt: t0}
		status := "running"
		switch {
		case k.how == "exit" && marked:
			ends[id] = endMark{code: k.code, at: end}
		case k.how == "exit":
			st = &api.TaskState{State: "dead", Failed: k.code != 0, StartedAt: t0, FinishedAt: end,
				Events: []*api.TaskEvent{{Type: api.TaskStarted}, {Type: api.TaskTerminated, ExitCode: k.code}}}
		case k.how == "killed":
			st = &api.TaskState{State: "dead", Failed: true, StartedAt: t0, FinishedAt: end,
				Events: []*api.TaskEvent{{Type: api.TaskStarted}, {Type: api.TaskKilling}, {Type: api.TaskTerminated, ExitCode: 143}}}
			status = "complete"
		case k.how == "lost":
			status = "lost"
		}
		allocs = append(allocs, &api.AllocationListStub{ID: id, Name: fmt.Sprintf("j.%s[%d]", groupName(k.role), k.index),
			TaskGroup: groupName(k.role), JobVersion: 2, ClientStatus: status, ModifyTime: end.UnixNano(),
			TaskStates: map[string]*api.TaskState{MainTask: st}})
	}
	// an allocation of an older version never counts
	allocs = append(allocs, &api.AllocationListStub{ID: "old", Name: fmt.Sprintf("j.%s[0]", groupName(tasks[0].role)),
		TaskGroup: groupName(tasks[0].role), JobVersion: 1, ClientStatus: "failed",
		TaskStates: map[string]*api.TaskState{MainTask: {State: "dead", Failed: true, StartedAt: t0, FinishedAt: t0,
			Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: 9}}}}})
	return allocs, ends
}

// watcherVerdict is the watcher's judgement (step: observe, the changed
// tasks, advance) over snapshots in which the tasks' ends become visible
// one by one, in the order they happened; nil when no rule fired.
func watcherVerdict(pol completion.Policy, tasks []jtask) *completion.Verdict {
	m := completion.NewMachine(pol, completion.MachineConfig{Start: time.Unix(100, 0)})
	order := append([]jtask(nil), tasks...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].at < order[j].at })
	last := map[jobs.TaskRef]observed{}
	now := time.Unix(200, 0)
	for k := 0; k <= len(order); k++ {
		snap := make([]jtask, len(order))
		for i, t := range order {
			if i >= k {
				t.how = "run"
			}
			snap[i] = t
		}
		allocs, _ := judgeAllocs(snap, false)
		var changed []observed
		for _, o := range observe(pol, allocs, 2, m.StoppingSet()) {
			if prev, seen := last[o.TaskRef]; !seen || prev.State != o.State || prev.ExitCode != o.ExitCode {
				changed = append(changed, o)
			}
			last[o.TaskRef] = o
		}
		placed, ended := snapshotEvents(changed, now)
		for _, a := range advance(m, placed, ended, now) {
			if a.Kind == completion.ActVerdict {
				return &a.Verdict
			}
		}
	}
	return nil
}

// TestJudgesAgree feeds the same observations to every judge of a Nomad
// job: the watcher of run and the controller (watcherVerdict), the
// poststop finisher and the UAI judge (judge, Finish), the in-task
// finisher reading end markers (judge with ends, FinishEnded) and status
// (statusVerdict, inspect; stoppedVerdict once the job was stopped and
// its tasks ended). Each must give the verdict the platform's
// rule gives, written here by hand, and the same reason and trigger as
// the others.
func TestJudgesAgree(t *testing.T) {
	one := 1
	// minFailedTaskCount 1 is the default the PAI readers fill in
	pai := func(n int, minSucceeded *int) completion.Policy {
		return completion.Policy{Name: "j", Kind: jobs.CompletionPAI, Format: jobs.FormatPAIv2, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
			Roles: []completion.PolicyRole{{Name: "worker", Instances: n, MinFailed: &one, MinSucceeded: minSucceeded}}}
	}
	tf := completion.Policy{Name: "j", Kind: jobs.CompletionTF, Format: jobs.FormatTFJob, Completion: jobs.Completion{Kind: jobs.CompletionTF},
		Roles: []completion.PolicyRole{{Name: "ps", ReplicaType: "ps", Instances: 1}, {Name: "worker", ReplicaType: "worker", Instances: 2}}}
	w := func(i int, how string, code, at int) jtask { return jtask{"worker", i, how, code, at} }
	cases := map[string]struct {
		pol   completion.Policy
		tasks []jtask
		want  completion.Phase // "" = no rule fired
		code  int
	}{
		// spec/pai.md §4: minFailedTaskCount defaults to 1, so the first
		// failure fails the job with the failed task's exit code.
		"PAI: one failure fails the job": {pai(3, nil), []jtask{w(0, "exit", 0, 1), w(1, "exit", 3, 2), w(2, "run", 0, 0)},
			completion.PhaseFailed, 3},
		// minSucceededTaskCount unset: every task must succeed.
		"PAI: every worker succeeded": {pai(3, nil), []jtask{w(0, "exit", 0, 3), w(1, "exit", 0, 1), w(2, "exit", 0, 2)},
			completion.PhaseSucceeded, 0},
		"PAI: some succeeded, others run": {pai(3, nil), []jtask{w(0, "exit", 0, 1), w(1, "run", 0, 0), w(2, "run", 0, 0)},
			"", 0},
		// minSucceededTaskCount 1: the first success ends the job.
		"PAI: minSucceeded 1": {pai(3, &one), []jtask{w(0, "run", 0, 0), w(1, "exit", 0, 1), w(2, "run", 0, 0)},
			completion.PhaseSucceeded, 0},
		// spec/pai.md §4.2: a lost node is NodeLost (-1001), a failure.
		"PAI: lost allocation": {pai(2, nil), []jtask{w(0, "lost", 0, 1), w(1, "run", 0, 0)},
			completion.PhaseFailed, ExitNodeLost},
		// Stopped from outside before any rule fired: stopped, 143, on
		// every target (completion.UserStopped).
		"PAI: stopped from outside": {pai(2, nil), []jtask{w(0, "killed", 0, 1), w(1, "killed", 0, 2)},
			completion.PhaseStopped, completion.StoppedExitCode},
		// a rule that fired before the stop stands (UserStopped)
		"PAI: a failure, then the other stopped": {pai(2, nil), []jtask{w(0, "exit", 3, 1), w(1, "killed", 0, 2)},
			completion.PhaseFailed, 3},
		// a success that fired no rule does not outweigh the stop
		"PAI: one succeeded, the other stopped from outside": {pai(2, nil), []jtask{w(0, "exit", 0, 1), w(1, "killed", 0, 2)},
			completion.PhaseStopped, completion.StoppedExitCode},
		// spec/kubeflow.md §3, no Chief: worker 0 succeeding ends the job.
		"TFJob: worker 0 succeeds": {tf, []jtask{{"ps", 0, "run", 0, 0}, w(0, "exit", 0, 1), w(1, "run", 0, 0)},
			completion.PhaseSucceeded, 0},
		"TFJob: worker 1 alone does not": {tf, []jtask{{"ps", 0, "run", 0, 0}, w(0, "run", 0, 0), w(1, "exit", 0, 1)},
			"", 0},
		// restartPolicy Never (the TFJob default): a failed replica fails
		// the job with its exit code.
		"TFJob: a worker fails": {tf, []jtask{{"ps", 0, "run", 0, 0}, w(0, "run", 0, 0), w(1, "exit", 2, 1)},
			completion.PhaseFailed, 2},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			allocs, _ := judgeAllocs(c.tasks, false)
			fw := &watcher{pol: c.pol, version: 2, m: completion.NewMachine(c.pol, completion.MachineConfig{})}
			got := map[string]*completion.Verdict{"watcher (run, controller)": watcherVerdict(c.pol, c.tasks)}
			got["finisher (poststop, UAI judge)"], _, _ = judge(fw, allocs, nil)
			got["status"] = statusVerdict(c.pol, observe(c.pol, allocs, 2, nil), 0, nil)
			ended := true
			for _, k := range c.tasks {
				ended = ended && k.how != "run"
			}
			if ended {
				// status of the job stopped from outside (nomad job
				// stop) once its tasks ended: a rule that fired stands
				sv := stoppedVerdict(c.pol, observe(c.pol, allocs, 2, nil))
				if c.want != "" {
					got["status (job stopped)"] = &sv
				}
			}
			marks := false
			for _, k := range c.tasks {
				marks = marks || k.how == "exit"
			}
			if marks {
				// the tasks that ended by themselves wrote end markers
				// that the server's states do not show yet
				mallocs, ends := judgeAllocs(c.tasks, true)
				got["in-task finisher (end markers)"], _, _ = judge(fw, mallocs, ends)
			}
			var first *completion.Verdict
			for who, v := range got {
				switch {
				case v == nil && c.want != "":
					t.Errorf("%s: no verdict, want %s (exit %d)", who, c.want, c.code)
				case v != nil && c.want == "":
					t.Errorf("%s: verdict %s (%s), want none", who, v.Phase, v.Reason)
				case v != nil && (v.Phase != c.want || v.ExitCode != c.code):
					t.Errorf("%s: verdict %s exit %d (%s), want %s exit %d", who, v.Phase, v.ExitCode, v.Reason, c.want, c.code)
				}
				if v != nil && first != nil && (v.Reason != first.Reason || fmt.Sprint(v.Trigger) != fmt.Sprint(first.Trigger)) {
					t.Errorf("%s: reason %q trigger %v, another judge %q %v", who, v.Reason, v.Trigger, first.Reason, first.Trigger)
				}
				if v != nil {
					first = v
				}
			}
		})
	}
}
