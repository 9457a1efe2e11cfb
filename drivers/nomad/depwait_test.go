package nomad

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// checkWaitTask: the wait task is a prestart task that ends, runs the
// helper's nomad-wait with the role's dependencies, on raw_exec (the
// helper is a host binary, as the finisher's).
func checkWaitTask(t *testing.T, name string, task *api.Task) {
	t.Helper()
	args, _ := task.Config["args"].([]string)
	if task.Lifecycle == nil || task.Lifecycle.Hook != "prestart" || task.Lifecycle.Sidecar || task.Driver != "raw_exec" ||
		task.Config["command"] != shapeHelper || strings.Join(args, " ") != WaitCommand+" dataset-initializer=Complete" {
		t.Errorf("%s: wait task %+v %v", name, task.Lifecycle, task.Config)
	}
}

// TestStepOrderNeedsHelper: without the helper the wait task cannot run,
// and the job is refused at the dependency's position rather than started
// out of order.
func TestStepOrderNeedsHelper(t *testing.T) {
	at := jobs.Pos{File: "j.yaml", Line: 7, Col: 9}
	j := psWorker("x", "true")
	j.Roles[1].DependsOn = []jobs.Dependency{{Role: j.Roles[0].Name, Status: jobs.DependsReady, Pos: at}}
	_, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Step order needs the helper on Nomad") || diags[0].Subject == nil || diags[0].Subject.Start.Line != 7 {
		t.Errorf("want the refusal at line 7, got %v", diags)
	}
	site := rawExecSite()
	site.Nomad.Helper = "/usr/local/bin/jobshift"
	job, diags := BuildJob(plan(j, site), fixtureContract{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var names []string
	for _, tk := range job.TaskGroups[1].Tasks {
		names = append(names, tk.Name)
	}
	if !strings.Contains(strings.Join(names, " "), WaitTask) {
		t.Errorf("group %s has tasks %v, no %s", *job.TaskGroups[1].Name, names, WaitTask)
	}
	for _, tk := range job.TaskGroups[0].Tasks {
		if tk.Name == WaitTask {
			t.Errorf("the role without dependencies waits too")
		}
	}
}

// TestMayStartNow: the wait task's decision over the allocations as Nomad
// lists them, against JobSet's dependsOn (kubernetes-sigs/jobset
// pkg/controllers/depends_on.go, v0.8.0): Complete holds once every task
// of the dependency succeeded and never once one failed; Ready once every
// one started, whether it still runs or ended. A task of another version
// (an earlier attempt) does not count.
func TestMayStartNow(t *testing.T) {
	t0 := time.Unix(100, 0)
	running := &api.TaskState{State: "running", StartedAt: t0}
	ok := &api.TaskState{State: "dead", StartedAt: t0, FinishedAt: t0.Add(time.Second), Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: 0}}}
	bad := &api.TaskState{State: "dead", Failed: true, StartedAt: t0, FinishedAt: t0.Add(time.Second), Events: []*api.TaskEvent{{Type: api.TaskTerminated, ExitCode: 3}}}
	pol := completion.Policy{Roles: []completion.PolicyRole{{Name: "init", Instances: 2}, {Name: "node", Instances: 1}}}
	alloc := func(i int, st *api.TaskState, version uint64, status string) *api.AllocationListStub {
		a := &api.AllocationListStub{ID: string(rune('a' + i)), Name: "j.init[" + string(rune('0'+i)) + "]", TaskGroup: "init",
			ClientStatus: status, JobVersion: version, TaskStates: map[string]*api.TaskState{}}
		if st != nil {
			a.TaskStates[MainTask] = st
		}
		return a
	}
	for _, c := range []struct {
		name   string
		status jobs.DependencyStatus
		allocs []*api.AllocationListStub
		want   completion.StartDecision
	}{
		{"complete: both succeeded", jobs.DependsComplete, []*api.AllocationListStub{alloc(0, ok, 1, "complete"), alloc(1, ok, 1, "complete")}, completion.StartNow},
		{"complete: one still runs", jobs.DependsComplete, []*api.AllocationListStub{alloc(0, ok, 1, "complete"), alloc(1, running, 1, "running")}, completion.StartWait},
		{"complete: one failed", jobs.DependsComplete, []*api.AllocationListStub{alloc(0, ok, 1, "complete"), alloc(1, bad, 1, "failed")}, completion.StartNever},
		{"complete: success of an older version", jobs.DependsComplete, []*api.AllocationListStub{alloc(0, ok, 0, "complete"), alloc(1, ok, 1, "complete")}, completion.StartWait},
		{"ready: both started", jobs.DependsReady, []*api.AllocationListStub{alloc(0, running, 1, "running"), alloc(1, bad, 1, "failed")}, completion.StartNow},
		{"ready: one pending", jobs.DependsReady, []*api.AllocationListStub{alloc(0, running, 1, "running"), alloc(1, nil, 1, "pending")}, completion.StartWait},
	} {
		role := &jobs.Role{Name: "node", DependsOn: []jobs.Dependency{{Role: "init", Status: c.status}}}
		if got, why := MayStartNow(pol, pol.Job(), role, c.allocs, 1); got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, got, why, c.want)
		}
	}
	if _, err := ParseDeps([]string{"init=Started"}); err == nil {
		t.Errorf("ParseDeps accepts a status jobshift does not know")
	}
}
