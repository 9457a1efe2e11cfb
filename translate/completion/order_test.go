package completion

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// orderJob is a Trainer-style job: an initializer that must complete, a
// node role after it, a launcher that waits for the nodes to be ready
// (kubernetes-sigs/jobset examples/depends-on: initializer Complete →
// launcher; launcher Ready → worker).
func orderJob() *jobs.Job {
	return &jobs.Job{Roles: []*jobs.Role{
		{Name: "init", Instances: 1},
		{Name: "node", Instances: 2, DependsOn: []jobs.Dependency{{Role: "init", Status: jobs.DependsComplete}}},
		{Name: "launcher", Instances: 1, DependsOn: []jobs.Dependency{{Role: "node", Status: jobs.DependsReady}}},
	}}
}

// TestMayStart is jobset pkg/controllers/depends_on.go
// dependencyReachedStatus: Complete = replicas == Succeeded; Ready =
// replicas == Ready + Failed + Succeeded.
func TestMayStart(t *testing.T) {
	j := orderJob()
	cases := []struct {
		name  string
		role  string
		tasks []Task
		want  StartDecision
	}{
		{"no dependencies", "init", nil, StartNow},
		{"initializer not started", "node", nil, StartWait},
		{"initializer running", "node", []Task{run("init", 0)}, StartWait},
		{"initializer succeeded", "node", []Task{tk("init", 0, Succeeded, 0, 1)}, StartNow},
		{"initializer failed", "node", []Task{tk("init", 0, Failed, 3, 1)}, StartNever},
		{"initializer stopped", "node", []Task{tk("init", 0, Stopped, 143, 1)}, StartNever},
		{"one node of two started", "launcher", []Task{run("node", 0), tk("node", 1, Pending, 0, 0)}, StartWait},
		{"both nodes running", "launcher", []Task{run("node", 0), run("node", 1)}, StartNow},
		{"a node already ended counts as ready", "launcher", []Task{run("node", 0), tk("node", 1, Succeeded, 0, 1)}, StartNow},
		{"a failed node counts as ready (JobSet counts Failed)", "launcher", []Task{run("node", 0), tk("node", 1, Failed, 1, 1)}, StartNow},
		{"a task reported twice counts once", "launcher", []Task{run("node", 0), run("node", 0)}, StartWait},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := MayStart(j, j.Role(c.role), c.tasks)
			if got != c.want {
				t.Fatalf("MayStart(%s) = %s (%s), want %s", c.role, got, why, c.want)
			}
			if got != StartNow && why == "" {
				t.Fatalf("a %s decision needs a reason", got)
			}
		})
	}
}

func TestBlocked(t *testing.T) {
	j := orderJob()
	if _, _, b := Blocked(j, []Task{run("init", 0)}); b {
		t.Fatal("a running initializer blocks nothing")
	}
	role, why, b := Blocked(j, []Task{tk("init", 0, Failed, 2, 1)})
	if !b || role != "node" || !strings.Contains(why, "init-0 failed (exit 2)") {
		t.Fatalf("Blocked = %q %q %v, want node blocked by init-0's failure", role, why, b)
	}
	// Once node has started, its dependency is history.
	if _, _, b := Blocked(j, []Task{tk("init", 0, Failed, 2, 1), run("node", 0)}); b {
		t.Fatal("a role that started is not blocked")
	}
}

func TestCheckOrder(t *testing.T) {
	if _, msg, ok := CheckOrder(orderJob()); !ok {
		t.Fatalf("valid order refused: %s", msg)
	}
	cyc := &jobs.Job{Roles: []*jobs.Role{
		{Name: "a", Instances: 1, DependsOn: []jobs.Dependency{{Role: "b", Status: jobs.DependsReady, Pos: jobs.Pos{Line: 3}}}},
		{Name: "b", Instances: 1, DependsOn: []jobs.Dependency{{Role: "a", Status: jobs.DependsReady, Pos: jobs.Pos{Line: 7}}}},
	}}
	if p, msg, ok := CheckOrder(cyc); ok || p.Line == 0 || !strings.Contains(msg, "neither can ever start") {
		t.Fatalf("cycle: %v %q %v", p, msg, ok)
	}
	unknown := &jobs.Job{Roles: []*jobs.Role{{Name: "a", Instances: 1, DependsOn: []jobs.Dependency{{Role: "zz", Status: jobs.DependsReady}}}}}
	if _, msg, ok := CheckOrder(unknown); ok || !strings.Contains(msg, `"zz"`) {
		t.Fatalf("unknown role: %q %v", msg, ok)
	}
	bad := &jobs.Job{Roles: []*jobs.Role{{Name: "a", Instances: 1}, {Name: "b", Instances: 1, DependsOn: []jobs.Dependency{{Role: "a", Status: "Started"}}}}}
	if _, msg, ok := CheckOrder(bad); ok || !strings.Contains(msg, "Ready and Complete") {
		t.Fatalf("unknown status: %q %v", msg, ok)
	}
}

// TestMachineBlock: a blocked role fails the attempt (retried by the job's
// rules) and the never-started tasks are stopped.
func TestMachineBlock(t *testing.T) {
	// PAI counters disabled: the initializer's failure decides nothing by
	// itself, so only the step order can end the attempt.
	j := paiV2(orderJob().Roles...)
	for _, r := range j.Roles {
		r.MinFailed, r.MinSucceeded = ip(-1), ip(-1)
	}
	m := NewMachine(PolicyOf(j), MachineConfig{})
	m.Observe(TaskEvent{TaskRef: ref("init", 0), State: Running})
	m.Observe(TaskEvent{TaskRef: ref("init", 0), State: Failed, ExitCode: 2})
	if v, ok := m.Verdict(); ok {
		t.Fatalf("the rules decided without the step order: %+v", v)
	}
	_, why, blocked := Blocked(j, m.Tasks())
	if !blocked {
		t.Fatal("node should be blocked")
	}
	acts := m.Block(why)
	if len(acts) < 2 || acts[0].Kind != ActVerdict || acts[0].Verdict.Phase != PhaseFailed || acts[1].Kind != ActStop {
		t.Fatalf("Block = %+v", acts)
	}
	if m.Block(why) != nil {
		t.Fatal("a second Block must do nothing")
	}
}
