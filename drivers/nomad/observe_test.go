package nomad

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestObserveUAI: with a parameter-server task next to the training task,
// the task's outcome is the training task's; the PS being stopped by the
// leader rule is not a failure, the PS dying by itself is.
func TestObserveUAI(t *testing.T) {
	t0 := time.Unix(100, 0)
	exited := func(code int, failed bool) *api.TaskState {
		return &api.TaskState{State: "dead", Failed: failed, StartedAt: t0, FinishedAt: t0.Add(time.Second),
			Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: code}}}
	}
	stoppedByLeader := &api.TaskState{State: "dead", StartedAt: t0, FinishedAt: t0.Add(2 * time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskLeaderDead}, {Type: api.TaskKilling}, {Type: api.TaskKilled}}}
	killedBySibling := &api.TaskState{State: "dead", StartedAt: t0, FinishedAt: t0.Add(2 * time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskSiblingFailed}, {Type: api.TaskKilling}, {Type: api.TaskKilled}}}
	type got struct {
		State    completion.State
		ExitCode int
	}
	cases := map[string]struct {
		main, ps *api.TaskState
		want     got
	}{
		"training succeeded, ps stopped by leader": {exited(0, false), stoppedByLeader, got{completion.Succeeded, 0}},
		"training failed, ps stopped by leader":    {exited(3, true), stoppedByLeader, got{completion.Failed, 3}},
		"ps crashed, training killed":              {killedBySibling, exited(7, true), got{completion.Failed, 7}},
		"ps crashed, training still running":       {&api.TaskState{State: "running", StartedAt: t0}, exited(7, true), got{completion.Failed, 7}},
		"training running, ps running":             {&api.TaskState{State: "running", StartedAt: t0}, &api.TaskState{State: "running", StartedAt: t0}, got{completion.Running, 0}},
	}
	pol := Policy{Roles: []PolicyRole{{Name: "train", Group: "train", Instances: 1}}}
	for name, c := range cases {
		a := &api.AllocationListStub{ID: "a", Name: "uai.train[0]", TaskGroup: "train", ClientStatus: "running",
			TaskStates: map[string]*api.TaskState{MainTask: c.main, PSTask: c.ps}}
		obs := observe(pol, []*api.AllocationListStub{a}, 0, map[jobs.TaskRef]bool{})
		if len(obs) != 1 {
			t.Fatalf("%s: %d tasks observed", name, len(obs))
		}
		if diff := cmp.Diff(c.want, got{obs[0].State, obs[0].ExitCode}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}
