package nomad

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// verdictServer is a Nomad API with one verdict Variable and a list of
// allocations (the job's and another's), answering the two reads a
// watcher makes to trust a verdict.
type verdictServer struct {
	verdict *api.Variable
	allocs  []*api.AllocationListStub
}

func (s *verdictServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v1/var/"+s.verdict.Path:
		_ = json.NewEncoder(w).Encode(s.verdict)
	case r.URL.Path == "/v1/allocations":
		var out []*api.AllocationListStub
		for _, a := range s.allocs {
			if strings.HasPrefix(a.ID, r.URL.Query().Get("prefix")) {
				out = append(out, a)
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	default:
		http.NotFound(w, r)
	}
}

// A verdict that names a finisher is taken only when the finisher is a
// judging task of one of this job's allocations, of the version the
// verdict is for, started before the verdict was written. The forger
// writes the rest.
func TestVerdictAttribution(t *testing.T) {
	const (
		id    = "alice~mnist"
		own   = "11111111-0000-0000-0000-000000000001"
		old   = "11111111-0000-0000-0000-000000000002"
		other = "22222222-0000-0000-0000-000000000001"
	)
	started := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	states := map[string]*api.TaskState{
		MainTask:     {State: "running", StartedAt: started},
		FinisherTask: {State: "pending"},
		"sidecar":    {State: "running", StartedAt: started},
	}
	allocs := []*api.AllocationListStub{
		{ID: own, JobID: id, JobVersion: 3, TaskStates: states},
		{ID: old, JobID: id, JobVersion: 2, TaskStates: states},
		{ID: other, JobID: "bob~other", JobVersion: 3, TaskStates: states},
	}
	after := started.Add(time.Minute).UnixNano()
	cases := map[string]struct {
		alloc, task string
		written     int64
		trusted     bool
	}{
		"run's or the controller's (no writer)":     {"", "", after, true},
		"this job's in-task finisher":               {own, MainTask, after, true},
		"a made-up allocation":                      {"33333333-0000-0000-0000-000000000000", MainTask, after, false},
		"another job's allocation":                  {other, MainTask, after, false},
		"an earlier version's allocation":           {old, MainTask, after, false},
		"a task that does not judge":                {own, "sidecar", after, false},
		"a finisher task that never started":        {own, FinisherTask, after, false},
		"written before its writer started":         {own, MainTask, started.Add(-time.Second).UnixNano(), false},
		"a writer task without an allocation":       {"", MainTask, after, false},
		"an allocation prefix (not the ID) matches": {own[:8], MainTask, after, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			items := api.VariableItems{"phase": "succeeded", "exitCode": "0", "reason": "forged?", "attempts": "1", "version": "3"}
			verdictWriter{alloc: tc.alloc, task: tc.task}.sign(items)
			if tc.alloc == "" && tc.task != "" {
				items["task"] = tc.task
			}
			srv := httptest.NewServer(&verdictServer{verdict: &api.Variable{Path: ResultPath(id), Items: items, ModifyTime: tc.written}, allocs: allocs})
			defer srv.Close()
			c, err := api.NewClient(&api.Config{Address: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			w := &watcher{c: c, id: id, version: 3}
			got := w.recorded(t.Context())
			if tc.trusted != (got != nil) {
				t.Fatalf("trusted = %v, want %v", got != nil, tc.trusted)
			}
			if got != nil && got.Phase != completion.PhaseSucceeded {
				t.Errorf("verdict %+v", got)
			}
		})
	}
}

// End markers count only as the end of this version's allocation whose
// ID the marker's path names, written after its main task started: a
// forger's marker for a made-up allocation, an earlier version's, or one
// written ahead of the task fires no rule (PAI's first failure would).
func TestEndMarkerAttribution(t *testing.T) {
	t0 := time.Unix(100, 0)
	one := 1
	pol := completion.Policy{Name: "j", Format: jobs.FormatPAIv2, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []completion.PolicyRole{{Name: "worker", Instances: 2, MinFailed: &one}}}
	running := &api.TaskState{State: "running", StartedAt: t0}
	var allocs []*api.AllocationListStub
	for i := range 2 {
		allocs = append(allocs, &api.AllocationListStub{ID: fmt.Sprintf("a%d", i), Name: fmt.Sprintf("j.worker[%d]", i),
			TaskGroup: "worker", JobVersion: 2, ClientStatus: "running", TaskStates: map[string]*api.TaskState{MainTask: running}})
	}
	allocs = append(allocs, &api.AllocationListStub{ID: "old", Name: "j.worker[0]", TaskGroup: "worker", JobVersion: 1,
		ClientStatus: "running", TaskStates: map[string]*api.TaskState{MainTask: running}})
	later := t0.Add(time.Minute)
	for name, ends := range map[string]map[string]endMark{
		"a made-up allocation":            {"zz": {code: 1, at: later}},
		"an earlier version's allocation": {"old": {code: 1, at: later}},
		"written before the task started": {"a0": {code: 1, at: t0.Add(-time.Second)}},
	} {
		w := &watcher{pol: pol, version: 2, m: completion.NewMachine(pol, completion.MachineConfig{})}
		if v, _, seen := judge(w, allocs, ends); v != nil {
			t.Errorf("%s: a forged marker decided %s (%s)", name, v.Phase, seen)
		}
	}
	w := &watcher{pol: pol, version: 2, m: completion.NewMachine(pol, completion.MachineConfig{})}
	if v, _, seen := judge(w, allocs, map[string]endMark{"a1": {code: 1, at: later}}); v == nil || v.Phase != completion.PhaseFailed {
		t.Errorf("the job's own marker decided %v (%s), want failed", v, seen)
	}
}

// On the agent: a verdict naming a running task of the job's own
// allocation is taken; the same allocation named in another job's
// verdict, or a made-up allocation, is not (the stub's fields and the
// Variable's times as Nomad gives them).
func TestAgentVerdictAttribution(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	id := fmt.Sprintf("verdict-attr-%d", time.Now().UnixNano())
	job := api.NewBatchJob(id, id, "global", 50)
	task := api.NewTask(MainTask, "raw_exec").SetConfig("command", "/bin/sleep").SetConfig("args", []string{"60"})
	task.Resources = &api.Resources{CPU: new(20), MemoryMB: new(16)}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Jobs().Deregister(id, true, nil)
	var alloc *api.AllocationListStub
	for deadline := time.Now().Add(90 * time.Second); alloc == nil; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the job's task did not start")
		}
		stubs, _, err := c.Jobs().Allocations(id, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range stubs {
			if ts := a.TaskStates[MainTask]; ts != nil && !ts.StartedAt.IsZero() {
				alloc = a
			}
		}
	}
	other := id + "-other"
	for name, tc := range map[string]struct {
		job, alloc string
		trusted    bool
	}{
		"its own allocation's task": {id, alloc.ID, true},
		"another job's allocation":  {other, alloc.ID, false},
		"a made-up allocation":      {id, "0badc0de-0000-4000-8000-000000000000", false},
	} {
		items := api.VariableItems{"phase": "succeeded", "exitCode": "0", "reason": "r", "attempts": "1", "version": fmt.Sprint(alloc.JobVersion)}
		verdictWriter{alloc: tc.alloc, task: MainTask}.sign(items)
		if _, _, err := c.Variables().Create(&api.Variable{Path: ResultPath(tc.job), Items: items}, nil); err != nil {
			t.Fatal(err)
		}
		w := &watcher{c: c, id: tc.job, version: alloc.JobVersion}
		if got := w.recorded(t.Context()); (got != nil) != tc.trusted {
			t.Errorf("%s: trusted = %v, want %v", name, got != nil, tc.trusted)
		}
		c.Variables().Delete(ResultPath(tc.job), nil)
	}
}
