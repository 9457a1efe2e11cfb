package nomad

import (
	"strings"
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
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "train", Instances: 1}}}
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

// TestObserveRendezvousFailed: a barrier that failed by itself (timeout)
// fails the task, though Nomad then kills the main task that never
// started; a barrier killed by a stop is a stop. (A gang-timeout job was
// once judged "stopped by the user" when all its placed tasks' barriers
// timed out in one snapshot.)
func TestObserveRendezvousFailed(t *testing.T) {
	t0 := time.Unix(100, 0)
	neverStarted := &api.TaskState{State: "dead", Events: []*api.TaskEvent{{Type: api.TaskSiblingFailed}, {Type: api.TaskKilling}, {Type: api.TaskKilled}}}
	timedOut := &api.TaskState{State: "dead", Failed: true, StartedAt: t0, FinishedAt: t0.Add(4 * time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: 1}}}
	killedBarrier := &api.TaskState{State: "dead", Failed: true, StartedAt: t0, FinishedAt: t0.Add(time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskKilling}, {Type: api.TaskTerminated, ExitCode: 1}}}
	type got struct {
		State    completion.State
		ExitCode int
	}
	cases := map[string]struct {
		barrier *api.TaskState
		status  string
		want    got
	}{
		"barrier timed out, main killed unstarted": {timedOut, "failed", got{completion.Failed, 1}},
		"barrier killed by a stop":                 {killedBarrier, "complete", got{completion.Stopped, 0}},
	}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "worker", Instances: 1}}}
	for name, c := range cases {
		a := &api.AllocationListStub{ID: "a", Name: "j.worker[0]", TaskGroup: "worker", ClientStatus: c.status,
			TaskStates: map[string]*api.TaskState{MainTask: neverStarted, BarrierTask: c.barrier}}
		obs := observe(pol, []*api.AllocationListStub{a}, 0, map[jobs.TaskRef]bool{})
		if len(obs) != 1 {
			t.Fatalf("%s: %d tasks observed", name, len(obs))
		}
		if diff := cmp.Diff(c.want, got{obs[0].State, obs[0].ExitCode}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestLastExitSignal: a task that died of a signal is reported 128+n
// (Nomad's Terminated event carries exit code 0 and the signal).
func TestLastExitSignal(t *testing.T) {
	for _, tc := range []struct {
		ev   api.TaskEvent
		want int
	}{
		{api.TaskEvent{Type: api.TaskTerminated, ExitCode: 0, Signal: 9}, 137},
		{api.TaskEvent{Type: api.TaskTerminated, ExitCode: 0, Signal: 15}, 143},
		{api.TaskEvent{Type: api.TaskTerminated, ExitCode: 3}, 3},
		{api.TaskEvent{Type: api.TaskTerminated, ExitCode: 137}, 137},
	} {
		ev := tc.ev
		got, _, ok := lastExit(&api.TaskState{Events: []*api.TaskEvent{&ev}})
		if !ok || got != tc.want {
			t.Errorf("lastExit(%+v) = %d, %v; want %d", tc.ev, got, ok, tc.want)
		}
	}
}

// TestObserveLost: an allocation whose client was lost is a failed task
// with OpenPAI's NodeLost code, though its task states still say running
// (the client's last report); Nomad's replacement of it is not the task.
func TestObserveLost(t *testing.T) {
	lost := &api.AllocationListStub{ID: "a", Name: "j.worker[1]", TaskGroup: "worker", ClientStatus: "lost",
		TaskStates: map[string]*api.TaskState{MainTask: {State: "running", StartedAt: time.Unix(100, 0)}}}
	repl := &api.AllocationListStub{ID: "b", Name: "j.worker[1]", TaskGroup: "worker", ClientStatus: "running",
		TaskStates: map[string]*api.TaskState{MainTask: {State: "running", StartedAt: time.Unix(130, 0)}}}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "worker", Instances: 2}}}
	for _, order := range [][]*api.AllocationListStub{{lost, repl}, {repl, lost}} {
		obs := observe(pol, order, 0, map[jobs.TaskRef]bool{})
		if len(obs) != 1 || obs[0].AllocID != "a" || obs[0].State != completion.Failed || obs[0].ExitCode != -1001 {
			t.Fatalf("observed %+v, want only worker-1 of alloc a, failed with -1001", obs)
		}
	}
	if c := completion.ClassifyPAIExit(completion.PAIExitCode(ExitNodeLost, completion.EraK8s), completion.EraK8s); c != completion.Transient {
		t.Errorf("NodeLost classifies %v, want transient", c)
	}
}

// A kill counts only before the task's end: a stop reaching a task that
// had ended by itself appends its Killing event after Terminated.
func TestKilledOnlyBeforeTheEnd(t *testing.T) {
	ev := func(types ...string) *api.TaskState {
		ts := &api.TaskState{State: "dead"}
		for _, ty := range types {
			ts.Events = append(ts.Events, &api.TaskEvent{Type: ty})
		}
		return ts
	}
	cases := map[string]struct {
		ts   *api.TaskState
		want bool
	}{
		"stopped while running":       {ev(api.TaskStarted, api.TaskKilling, api.TaskTerminated, api.TaskKilled), true},
		"ended, then the job stopped": {ev(api.TaskStarted, api.TaskTerminated, api.TaskKilling), false},
		"ended by itself":             {ev(api.TaskStarted, api.TaskTerminated), false},
		"killed before it started":    {ev(api.TaskReceived, api.TaskKilling, api.TaskKilled), true},
		"no state":                    {nil, false},
	}
	for name, c := range cases {
		if got := killed(c.ts); got != c.want {
			t.Errorf("%s: killed = %v, want %v", name, got, c.want)
		}
	}
}

// TestObserveOwnSuccessWhileStopping: a task the watcher first sees after
// the job's verdict (the in-job finisher decided), whose main task exited
// 0 by itself, succeeded; one the stop killed was stopped, whatever its
// exit code.
func TestObserveOwnSuccessWhileStopping(t *testing.T) {
	t0 := time.Unix(100, 0)
	ownExit := &api.TaskState{State: "dead", StartedAt: t0, FinishedAt: t0.Add(time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskStarted}, {Type: api.TaskTerminated, ExitCode: 0}}}
	killedByStop := &api.TaskState{State: "dead", StartedAt: t0, FinishedAt: t0.Add(time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskStarted}, {Type: api.TaskKilling}, {Type: api.TaskTerminated, ExitCode: 0}, {Type: api.TaskKilled}}}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "node", Instances: 1}}}
	for name, c := range map[string]struct {
		main *api.TaskState
		want completion.State
	}{
		"exited 0 by itself": {ownExit, completion.Succeeded},
		"killed by the stop": {killedByStop, completion.Stopped},
	} {
		a := &api.AllocationListStub{ID: "a", Name: "j.node[0]", TaskGroup: "node", ClientStatus: "complete", DesiredStatus: "stop",
			TaskStates: map[string]*api.TaskState{MainTask: c.main}}
		obs := observe(pol, []*api.AllocationListStub{a}, 0, map[jobs.TaskRef]bool{{Role: "node", Index: 0}: true})
		if len(obs) != 1 || obs[0].State != c.want {
			t.Errorf("%s: %+v, want %s", name, obs, c.want)
		}
	}
}

// TestObserveScratchFailed: a scratch task that failed (an image without
// /bin/sh) fails the task, which never started, with its exit code and a
// message naming it; an init container's failure is named as such.
func TestObserveScratchFailed(t *testing.T) {
	t0 := time.Unix(100, 0)
	failed := &api.TaskState{State: "dead", Failed: true, StartedAt: t0, FinishedAt: t0.Add(time.Second),
		Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: 127}}}
	never := &api.TaskState{State: "dead", Events: []*api.TaskEvent{{Type: api.TaskSiblingFailed}}}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "master", Instances: 1}}}
	for task, msg := range map[string]string{ScratchTask: "the scratch task making the emptyDirs failed: ", InitTask: "init container failed: "} {
		a := &api.AllocationListStub{ID: "a", Name: "j.master[0]", TaskGroup: "master", ClientStatus: "failed",
			TaskStates: map[string]*api.TaskState{task: failed, MainTask: never}}
		obs := observe(pol, []*api.AllocationListStub{a}, 0, map[jobs.TaskRef]bool{})
		if len(obs) != 1 || obs[0].State != completion.Failed || obs[0].ExitCode != 127 || !strings.HasPrefix(obs[0].Message, msg) {
			t.Errorf("%s failed: observed %+v, want failed with 127 and %q", task, obs, msg)
		}
	}
}

// TestObserveEvicted: an allocation Nomad stops to move it off its node
// (a drain: "alloc is being migrated") or for another job (preemption)
// is a task lost with its host, as Kubernetes evicts a pod, not a stop:
// while it is being killed, once killed, and before it started. One that
// had ended by itself keeps its own end; jobshift's own stop of the job
// stays a stop.
func TestObserveEvicted(t *testing.T) {
	events := func(state string, types ...string) map[string]*api.TaskState {
		ts := &api.TaskState{State: state, StartedAt: time.Unix(100, 0), FinishedAt: time.Unix(200, 0)}
		for _, ty := range types {
			ts.Events = append(ts.Events, &api.TaskEvent{Type: ty})
		}
		return map[string]*api.TaskState{MainTask: ts}
	}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "worker", Instances: 2}}}
	cases := map[string]struct {
		a     api.AllocationListStub
		state completion.State
		code  int
	}{
		"drained while running": {api.AllocationListStub{DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", ClientStatus: "running",
			TaskStates: events("running", api.TaskStarted, api.TaskKilling)}, completion.Failed, -1001},
		"drained, killed": {api.AllocationListStub{DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", ClientStatus: "complete",
			TaskStates: events("dead", api.TaskStarted, api.TaskKilling, api.TaskTerminated, api.TaskKilled)}, completion.Failed, -1001},
		"preempted": {api.AllocationListStub{DesiredStatus: "evict", PreemptedByAllocation: "x", ClientStatus: "complete",
			TaskStates: events("dead", api.TaskStarted, api.TaskKilling, api.TaskTerminated, api.TaskKilled)}, completion.Failed, -1001},
		"drained before it started": {api.AllocationListStub{DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", ClientStatus: "pending"},
			completion.Failed, -1001},
		"ended by itself, then drained": {api.AllocationListStub{DesiredStatus: "stop", DesiredDescription: "alloc is being migrated", ClientStatus: "complete",
			TaskStates: events("dead", api.TaskStarted, api.TaskTerminated)}, completion.Succeeded, 0},
		"stopped by jobshift": {api.AllocationListStub{DesiredStatus: "stop", DesiredDescription: "alloc not needed due to job update", ClientStatus: "complete",
			TaskStates: events("dead", api.TaskStarted, api.TaskKilling, api.TaskTerminated, api.TaskKilled)}, completion.Stopped, 0},
	}
	for name, c := range cases {
		a := c.a
		a.ID, a.Name, a.TaskGroup = "a", "j.worker[1]", "worker"
		obs := observe(pol, []*api.AllocationListStub{&a}, 0, map[jobs.TaskRef]bool{})
		if len(obs) != 1 || obs[0].State != c.state || c.state != completion.Stopped && obs[0].ExitCode != c.code {
			t.Errorf("%s: observed %+v, want %s with %d", name, obs, c.state, c.code)
		}
	}
}
