package nomad

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

func paiMesh(name string) *jobs.Job {
	j := psWorker(name, "true")
	j.Contracts = []string{jobs.ContractPAI}
	for _, r := range j.Roles {
		r.Ports = append(r.Ports, jobs.Port{Label: "http", Count: 1, Implicit: true}, jobs.Port{Label: "ssh", Count: 1, Implicit: true})
	}
	return j
}

func snapPlan(j *jobs.Job) *translate.Plan {
	p := plan(j, rawExecSite())
	p.Options[OptWatched] = "true"
	return p
}

func hasTask(g *api.TaskGroup, name string) bool {
	for _, t := range g.Tasks {
		if t.Name == name {
			return true
		}
	}
	return false
}

// TestRenderSnapshotRendezvous: with the snapshot no group has a barrier
// task, the job says so in meta (the watcher writes it only then), and
// each main task's env template reads its group's Variable, not the
// registrations; without it, the barrier stays.
func TestRenderSnapshotRendezvous(t *testing.T) {
	job, diags := BuildJob(snapPlan(paiMesh("mesh")), nil)
	if diags.HasErrors() || len(diags) > 0 {
		t.Fatal(diags)
	}
	if job.Meta[MetaRendezvous] != RendezvousSnap {
		t.Errorf("meta %s = %q, want %q", MetaRendezvous, job.Meta[MetaRendezvous], RendezvousSnap)
	}
	for _, g := range job.TaskGroups {
		if hasTask(g, BarrierTask) {
			t.Errorf("group %s has a barrier task", *g.Name)
		}
		var main *api.Task
		for _, task := range g.Tasks {
			if task.Name == MainTask {
				main = task
			}
		}
		tmpl := *main.Templates[0].EmbeddedTmpl
		want := `nomadVar "nomad/jobs/alice~mesh/` + *g.Name + `"`
		if !strings.Contains(tmpl, want) || strings.Contains(tmpl, "nomadService") {
			t.Errorf("group %s env template lacks %s or scans services:\n%s", *g.Name, want, tmpl)
		}
	}
	job, _ = BuildJob(plan(paiMesh("mesh"), rawExecSite()), nil)
	if _, ok := job.Meta[MetaRendezvous]; ok || !hasTask(job.TaskGroups[0], BarrierTask) {
		t.Errorf("without the option: meta %v, want the barrier and no %s", job.Meta, MetaRendezvous)
	}
}

// TestSnapshotFallsBackToBarrier: a job whose group cannot name a
// Variable path, or whose topology may not fit one Variable, keeps the
// barrier and is told why.
func TestSnapshotFallsBackToBarrier(t *testing.T) {
	dotted := paiMesh("dot")
	dotted.Roles[1].Name = "work.er"
	big := paiMesh("big")
	big.Roles[1].Instances = 2000
	for _, tc := range []struct {
		job  *jobs.Job
		want string
	}{
		{dotted, "not a valid Nomad Variable path"},
		{big, "Variable limit"},
	} {
		job, diags := BuildJob(snapPlan(tc.job), nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if len(diags) != 1 || !strings.Contains(diags[0].Detail, tc.want) {
			t.Errorf("%s: diags %v, want one warning saying %q", tc.job.Name, diags, tc.want)
		}
		if job.Meta[MetaRendezvous] == RendezvousSnap || !hasTask(job.TaskGroups[0], BarrierTask) {
			t.Errorf("%s: no barrier after the fallback", tc.job.Name)
		}
	}
}

// stub is an allocation as the placements query returns it: one port per
// label, all on host ip.
func stub(group string, idx int, version uint64, desired, client string, create uint64, ip string, ports map[string]int) *api.AllocationListStub {
	res := &api.AllocatedResources{Shared: api.AllocatedSharedResources{Networks: []*api.NetworkResource{{IP: ip}}}}
	for _, l := range sortedKeys(ports) {
		res.Shared.Ports = append(res.Shared.Ports, api.PortMapping{Label: l, Value: ports[l], To: 10001, HostIP: ip})
	}
	return &api.AllocationListStub{ID: fmt.Sprintf("%s-%d-%d", group, idx, create), Name: fmt.Sprintf("j.%s[%d]", group, idx),
		TaskGroup: group, JobVersion: version, DesiredStatus: desired, ClientStatus: client, CreateIndex: create, AllocatedResources: res}
}

// TestSnapshotFromPlacements: the snapshot is built from the attempt's
// placements — host IP and host port by label, in task index order, the
// address of a role without ports from its network — ignoring another
// version's allocations, stopped and lost ones, preferring the newer of
// two for one index; a task not placed yet is named instead.
func TestSnapshotFromPlacements(t *testing.T) {
	groups := []snapGroup{
		{name: "ps", count: 1, services: []snapService{{n: 0, label: "syn"}, {n: 1, label: "http"}}},
		{name: "worker", count: 2, services: []snapService{{n: 2, label: "syn"}, {n: 3, label: "http"}}},
		{name: "bare", count: 1, services: []snapService{{n: 4}}},
	}
	p := func(syn, http int) map[string]int { return map[string]int{"syn": syn, "http": http} }
	full := []*api.AllocationListStub{
		stub("ps", 0, 3, "run", "pending", 10, "10.0.0.1", p(2000, 2001)),
		stub("worker", 1, 3, "run", "pending", 10, "10.0.0.3", p(3100, 3101)),
		stub("worker", 0, 3, "run", "running", 10, "10.0.0.2", p(3000, 3001)),
		stub("bare", 0, 3, "run", "pending", 10, "10.0.0.4", nil),
	}
	want := api.VariableItems{"attempt": "2", "a0": "10.0.0.1", "p0": "2000", "p1": "2001",
		"a1": "10.0.0.2 10.0.0.3", "p2": "3000 3100", "p3": "3001 3101", "a2": "10.0.0.4"}
	for _, tc := range []struct {
		name        string
		allocs      []*api.AllocationListStub
		want        api.VariableItems
		wantMissing string
	}{
		{"all placed", full, want, ""},
		{"a task not yet placed", full[:2], nil, "worker-0 bare-0"},
		{"the previous attempt's allocation lingers", append([]*api.AllocationListStub{
			stub("worker", 0, 2, "run", "running", 5, "10.9.9.9", p(9, 9))}, full[:2]...), nil, "worker-0 bare-0"},
		{"stopped and lost allocations do not count", append(full[:2:2],
			stub("worker", 0, 3, "stop", "complete", 11, "10.9.9.9", p(9, 9)),
			stub("bare", 0, 3, "run", "lost", 11, "10.9.9.9", nil)), nil, "worker-0 bare-0"},
		{"a replacement wins over the placement it replaces", append(full[:3:3],
			stub("bare", 0, 3, "run", "pending", 12, "10.0.0.5", nil),
			stub("bare", 0, 3, "run", "pending", 11, "10.9.9.9", nil)),
			func() api.VariableItems { w := maps.Clone(want); w["a2"] = "10.0.0.5"; return w }(), ""},
		{"a placement lacking a port", []*api.AllocationListStub{full[0], full[1],
			stub("worker", 0, 3, "run", "pending", 10, "10.0.0.2", map[string]int{"syn": 3000}), full[3]}, nil, "worker-0"},
		{"no resources in the stub", []*api.AllocationListStub{full[0], full[1], full[2],
			{Name: "j.bare[0]", TaskGroup: "bare", JobVersion: 3, DesiredStatus: "run"}}, nil, "bare-0"},
	} {
		co := &coordinator{groups: groups, version: 3, attempt: 2}
		items, missing := co.build(tc.allocs)
		if diff := cmp.Diff(tc.want, items); diff != "" || missing != tc.wantMissing {
			t.Errorf("%s: missing %q (want %q), items (-want +got):\n%s", tc.name, missing, tc.wantMissing, diff)
		}
	}
}

// TestSnapshotMissingNamesAtMostEight: the timeout message stays short.
func TestSnapshotMissingNamesAtMostEight(t *testing.T) {
	co := &coordinator{groups: []snapGroup{{name: "w", count: 20, services: []snapService{{n: 0, label: "p"}}}}}
	_, missing := co.build(nil)
	if want := "w-0 w-1 w-2 w-3 w-4 w-5 w-6 w-7 and 12 more"; missing != want {
		t.Errorf("missing = %q, want %q", missing, want)
	}
}

// TestSnapshotJobHasNoServices: a snapshot-mode job registers no services
// (the coordinator reads placements) and each group says in meta which of
// its ports is which snapshot item, numbered across the job as
// contract.NomadServicesFor lists them; snapGroups reads that back.
func TestSnapshotJobHasNoServices(t *testing.T) {
	job, diags := BuildJob(snapPlan(paiMesh("mesh")), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var metas []string
	for _, g := range job.TaskGroups {
		if len(g.Services) > 0 {
			t.Errorf("group %s registers %d services", *g.Name, len(g.Services))
		}
		metas = append(metas, g.Meta[MetaSnapPorts])
	}
	// The PAI contract's default SynPort first, then paiMesh's http and
	// ssh, per role in job order.
	want := []string{"0:synport 1:http 2:ssh", "3:synport 4:http 5:ssh"}
	if diff := cmp.Diff(want, metas); diff != "" {
		t.Errorf("%s (-want +got):\n%s", MetaSnapPorts, diff)
	}
	got := snapGroups(job)
	wantGroups := []snapGroup{
		{name: *job.TaskGroups[0].Name, count: *job.TaskGroups[0].Count, services: []snapService{{n: 0, label: "synport"}, {n: 1, label: "http"}, {n: 2, label: "ssh"}}},
		{name: *job.TaskGroups[1].Name, count: *job.TaskGroups[1].Count, services: []snapService{{n: 3, label: "synport"}, {n: 4, label: "http"}, {n: 5, label: "ssh"}}},
	}
	if diff := cmp.Diff(wantGroups, got, cmp.AllowUnexported(snapGroup{}, snapService{})); diff != "" {
		t.Errorf("snapGroups (-want +got):\n%s", diff)
	}
	// A job registered with services (rendered before placements were
	// the rendezvous) gives the same slots from its services.
	barrier, _ := BuildJob(plan(paiMesh("mesh"), rawExecSite()), nil)
	if diff := cmp.Diff(wantGroups, snapGroups(barrier), cmp.AllowUnexported(snapGroup{}, snapService{})); diff != "" {
		t.Errorf("snapGroups of a job with services (-want +got):\n%s", diff)
	}
	// A group an operator added to the converted job is not a role: no
	// slots, no placement waited for.
	one := 1
	job.TaskGroups = append([]*api.TaskGroup{{Name: new("sidecar"), Count: &one, Meta: map[string]string{"team": "x"}}}, job.TaskGroups...)
	if diff := cmp.Diff(wantGroups, snapGroups(job), cmp.AllowUnexported(snapGroup{}, snapService{})); diff != "" {
		t.Errorf("snapGroups of a job with a group that is no role (-want +got):\n%s", diff)
	}
}

// TestRendezvousTimeout: once the rendezvous time is over without a
// snapshot, every task still waiting for it fails ("rendezvous failed",
// naming the tasks never placed), and stays failed when the stop
// that follows ends it; before that, or once written, nothing changes.
func TestRendezvousTimeout(t *testing.T) {
	start := time.Unix(1000, 0)
	co := &coordinator{start: start, missing: "worker-1"}
	w := &watcher{id: "j", co: co, rvTimeout: time.Minute}
	pending := func() []observed {
		return []observed{
			{Task: completion.Task{TaskRef: jobs.TaskRef{Role: "worker", Index: 0}, State: completion.Pending}},
			{Task: completion.Task{TaskRef: jobs.TaskRef{Role: "worker", Index: 1}, State: completion.Pending}},
		}
	}
	if got := w.rendezvous(pending(), start.Add(30*time.Second)); got[0].State != completion.Pending {
		t.Fatalf("before the timeout: %v", got[0].State)
	}
	if d := w.rvWait(start.Add(30*time.Second), 5*time.Second); d != 5*time.Second {
		t.Errorf("wait 30 s before the timeout = %v, want 5s", d)
	}
	if d := w.rvWait(start.Add(58*time.Second), 5*time.Second); d > 2100*time.Millisecond || d < 2*time.Second {
		t.Errorf("wait 2 s before the timeout = %v, want ≈ 2s", d)
	}
	got := w.rendezvous(pending(), start.Add(61*time.Second))
	for _, o := range got {
		if o.State != completion.Failed || o.ExitCode != 1 || !strings.Contains(o.Message, "rendezvous failed") || !strings.Contains(o.Message, "not yet placed: worker-1") {
			t.Errorf("%s-%d after the timeout: %s %d %q", o.Role, o.Index, o.State, o.ExitCode, o.Message)
		}
	}
	stopped := pending()
	stopped[0].State = completion.Stopped
	if got := w.rendezvous(stopped, start.Add(70*time.Second)); got[0].State != completion.Failed {
		t.Errorf("after the stop: %s, want still failed", got[0].State)
	}
	co2 := &coordinator{start: start, written: true}
	w2 := &watcher{id: "j", co: co2, rvTimeout: time.Minute}
	if got := w2.rendezvous(pending(), start.Add(time.Hour)); got[0].State != completion.Pending {
		t.Errorf("written snapshot: %s, want pending", got[0].State)
	}
}

// TestSnapshotOverLimitRefused: a snapshot over Nomad's 64 KiB Variable
// limit (measured: "variables are limited to 64KiB in total size") is
// refused with a message saying so, before any write.
func TestSnapshotOverLimitRefused(t *testing.T) {
	co := &coordinator{groups: []snapGroup{{name: "g"}}}
	err := co.write(t.Context(), api.VariableItems{"a0": strings.Repeat("10.0.0.1 ", 8000)})
	if err == nil || !strings.Contains(err.Error(), "65536-byte Variable limit") {
		t.Fatalf("err = %v, want the size refusal", err)
	}
}
