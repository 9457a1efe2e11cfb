package local

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// orderJob: an initializer, two nodes that wait for it to complete, a
// launcher that waits for the nodes to be ready (the JobSet examples'
// depends-on shape). The node command fails unless the initializer's file
// exists, so a node started early fails the job.
func orderJob(t *testing.T, initCmd string) *jobs.Job {
	dir := t.TempDir()
	job := paiV1("order", 0,
		roleDef{name: "init", n: 1, cmd: initCmd + " && echo data > " + dir + "/prepared"},
		roleDef{name: "node", n: 2, cmd: "test -f " + dir + "/prepared || exit 9; sleep 1", minF: intp(1)},
		roleDef{name: "launcher", n: 1, cmd: "true", minF: intp(1)})
	job.Role("node").DependsOn = []jobs.Dependency{{Role: "init", Status: jobs.DependsComplete}}
	job.Role("launcher").DependsOn = []jobs.Dependency{{Role: "node", Status: jobs.DependsReady}}
	return job
}

// runningAt is the index in evs of the first Running event of task.
func runningAt(evs []drivers.Event, task string) int {
	for i, e := range evs {
		if e.Task != nil && refString(*e.Task) == task && e.State == completion.Running {
			return i
		}
	}
	return -1
}

func TestDependsOnOrdersStarts(t *testing.T) {
	res, _, evs := runJob(t, orderJob(t, "sleep 0.3"), Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", res)
	}
	initEnd := -1
	for i, e := range evs {
		if e.Task != nil && refString(*e.Task) == "init-0" && e.State == completion.Succeeded {
			initEnd = i
		}
	}
	n0, n1, l := runningAt(evs, "node-0"), runningAt(evs, "node-1"), runningAt(evs, "launcher-0")
	if initEnd < 0 || n0 < initEnd || n1 < initEnd {
		t.Errorf("nodes started at events %d, %d, before the initializer completed (%d)", n0, n1, initEnd)
	}
	if l < n0 || l < n1 {
		t.Errorf("launcher started at event %d, before both nodes were ready (%d, %d)", l, n0, n1)
	}
}

// A failed initializer: the nodes can never start, the attempt fails (no
// PAI counter of init decides it: minFailed is null) and nothing of the
// nodes or the launcher ever runs.
func TestDependsOnBlockedFailsAttempt(t *testing.T) {
	res, dir, evs := runJob(t, orderJob(t, "exit 3"), Options{})
	if res.Phase != completion.PhaseFailed || !strings.Contains(res.Reason, "can never start") {
		t.Fatalf("result = %+v, want failed because node can never start", res)
	}
	want := map[string]completion.State{"init-0": completion.Failed, "node-0": completion.Stopped, "node-1": completion.Stopped, "launcher-0": completion.Stopped}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"init-0/attempt-1"}, starts(t, dir)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
}
