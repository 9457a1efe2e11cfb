package nomad

import (
	"strings"
	"testing"
	"time"

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
	p.Options[OptRendezvous] = RendezvousSnap
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

func reg(svc, alloc, addr string, port, idx int) *api.ServiceRegistration {
	return &api.ServiceRegistration{ServiceName: svc, AllocID: alloc, Address: addr, Port: port, Tags: []string{"idx-" + string(rune('0'+idx))}}
}

// TestSnapshotSlots: registrations are ordered by their allocation's
// index, those of other allocations (an earlier attempt) are ignored, and
// the tasks lacking one are named.
func TestSnapshotSlots(t *testing.T) {
	co := &coordinator{groups: []snapGroup{
		{name: "ps", count: 1, services: []snapService{{name: "s-ps", n: 0, ported: true}}},
		{name: "worker", count: 2, services: []snapService{{name: "s-w", n: 1, ported: true}}},
	}}
	regs := map[string][]*api.ServiceRegistration{
		"s-ps": {reg("s-ps", "a0", "10.0.0.1", 2000, 0)},
		"s-w":  {reg("s-w", "old", "10.0.0.9", 9, 1), reg("s-w", "b1", "10.0.0.3", 3001, 1), reg("s-w", "b0", "10.0.0.2", 3000, 0)},
	}
	index := map[string]int{"a0": 0, "b0": 0, "b1": 1}
	addrs, ports := co.slots(regs["s-w"], index, 2)
	if strings.Join(addrs, " ") != "10.0.0.2 10.0.0.3" || strings.Join(ports, " ") != "3000 3001" {
		t.Errorf("slots = %v %v, want 10.0.0.2 10.0.0.3 / 3000 3001", addrs, ports)
	}
	if m := co.firstMissing(regs, index); m != "" {
		t.Errorf("missing %q, want none", m)
	}
	delete(index, "b1")
	if m := co.firstMissing(regs, index); m != "worker-1" {
		t.Errorf("missing %q, want worker-1 (only an old allocation registered it)", m)
	}
	if m := co.firstMissing(regs, nil); m != "" {
		t.Errorf("missing by tag %q, want none", m)
	}
}

// TestRendezvousTimeout: once the rendezvous time is over without a
// snapshot, every task still waiting for it fails ("rendezvous failed",
// naming the tasks never registered), and stays failed when the stop
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
		if o.State != completion.Failed || o.ExitCode != 1 || !strings.Contains(o.Message, "rendezvous failed") || !strings.Contains(o.Message, "still missing: worker-1") {
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
