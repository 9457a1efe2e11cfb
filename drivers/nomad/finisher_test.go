package nomad

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestJudgeOneSnapshotPerFinisher: the finisher reads the job's
// allocations once, after its own task's end is visible. Tasks ending
// close together become visible one by one, and each finisher reads a
// snapshot at least as new as its own end; so only the finisher reading
// the snapshot with every end in it may decide, and it must. The cases
// are PAI's default rule (every worker must succeed) and its
// minFailedTaskCount = 1 (the first failure decides) and -1, on three workers
// whose ends become visible in order.
func TestJudgeOneSnapshotPerFinisher(t *testing.T) {
	t0 := time.Unix(100, 0)
	ended := func(code int) *api.TaskState {
		return &api.TaskState{State: "dead", Failed: code != 0, StartedAt: t0, FinishedAt: t0.Add(time.Duration(code+1) * time.Second),
			Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: code}}}
	}
	running := &api.TaskState{State: "running", StartedAt: t0}
	one, all := 1, -1
	cases := map[string]struct {
		codes     []int
		minFailed *int
		// want[k]: the verdict phase of the snapshot where the first
		// k+1 ends are visible ("" = no rule fired).
		want []completion.Phase
	}{
		"all succeed: only the last end decides": {[]int{0, 0, 0}, &one, []completion.Phase{"", "", completion.PhaseSucceeded}},
		"a failure decides at once":              {[]int{0, 3, 0}, &one, []completion.Phase{"", completion.PhaseFailed, completion.PhaseFailed}},
		// FrameworkController: with neither count triggered, a role whose
		// tasks all completed completes with success.
		"failures tolerated (-1): the last end decides": {[]int{3, 0, 0}, &all, []completion.Phase{"", "", completion.PhaseSucceeded}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			pol := completion.Policy{Name: "j", Format: jobs.FormatPAIv2, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
				Roles: []completion.PolicyRole{{Name: "worker", Instances: len(c.codes), MinFailed: c.minFailed}}}
			w := &watcher{pol: pol, version: 2,
				m: completion.NewMachine(pol, completion.MachineConfig{})}
			for k := range c.codes {
				var allocs []*api.AllocationListStub
				for i, code := range c.codes {
					st := running
					if i <= k {
						st = ended(code)
					}
					allocs = append(allocs, &api.AllocationListStub{ID: fmt.Sprint(i), Name: fmt.Sprintf("j.worker[%d]", i),
						TaskGroup: "worker", JobVersion: 2, ClientStatus: "running", TaskStates: map[string]*api.TaskState{MainTask: st}})
				}
				// An allocation of an older version never counts.
				allocs = append(allocs, &api.AllocationListStub{ID: "old", Name: "j.worker[0]", TaskGroup: "worker", JobVersion: 1,
					ClientStatus: "complete", TaskStates: map[string]*api.TaskState{MainTask: ended(9)}})
				v, _, seen := judge(w, allocs, nil)
				var got completion.Phase
				if v != nil {
					got = v.Phase
				}
				if got != c.want[k] {
					t.Errorf("ends 0..%d visible (%s): verdict %q, want %q", k, seen, got, c.want[k])
				}
			}
		})
	}
}
