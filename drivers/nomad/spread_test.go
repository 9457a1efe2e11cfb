package nomad

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

func spreadJob(cap string, counts ...int) *api.Job {
	j := &api.Job{Datacenters: []string{"dc*"}}
	if cap != "" {
		j.Constraints = []*api.Constraint{{LTarget: "${node.unique.id}", Operand: api.ConstraintDistinctProperty, RTarget: cap}}
	}
	for _, n := range counts {
		j.TaskGroups = append(j.TaskGroups, &api.TaskGroup{Count: new(n)})
	}
	return j
}

// A lost host leaves fewer clients than the cap was sized for: the cap is
// loosened so the clients up hold every task, never tightened.
func TestLoosenSpread(t *testing.T) {
	for name, tc := range map[string]struct {
		job      *api.Job
		usable   int
		from, to int
		ok       bool
		rtarget  string
	}{
		"3 tasks, 3 clients: fits":         {spreadJob("1", 1, 2), 3, 0, 0, false, "1"},
		"3 tasks, 2 clients: 2 per client": {spreadJob("1", 1, 2), 2, 1, 2, true, "2"},
		"7 tasks, 3 clients, cap 2: 3":     {spreadJob("2", 3, 4), 3, 2, 3, true, "3"},
		"5 tasks, 2 clients, cap 3: fits":  {spreadJob("3", 5), 2, 0, 0, false, "3"},
		"no client up: left":               {spreadJob("1", 1, 2), 0, 0, 0, false, "1"},
		"no spread":                        {spreadJob("", 1, 2), 1, 0, 0, false, ""},
		"not a number: left":               {spreadJob("x", 1, 2), 1, 0, 0, false, "x"},
	} {
		t.Run(name, func(t *testing.T) {
			from, to, ok := loosenSpread(tc.job, tc.usable)
			if from != tc.from || to != tc.to || ok != tc.ok {
				t.Errorf("loosenSpread = %d, %d, %v; want %d, %d, %v", from, to, ok, tc.from, tc.to, tc.ok)
			}
			if c := spreadCap(tc.job); c != nil && c.RTarget != tc.rtarget {
				t.Errorf("cap %s, want %s", c.RTarget, tc.rtarget)
			}
		})
	}
}

func TestUsableNodes(t *testing.T) {
	node := func(dc, pool, status, elig string) *api.NodeListStub {
		return &api.NodeListStub{Datacenter: dc, NodePool: pool, Status: status, SchedulingEligibility: elig}
	}
	nodes := []*api.NodeListStub{
		node("dc1", "default", "ready", "eligible"),
		node("dc1", "default", "down", "eligible"),
		node("dc1", "default", "ready", "ineligible"),
		node("dc2", "default", "ready", "eligible"),
		node("eu1", "default", "ready", "eligible"),
		node("dc1", "gpu", "ready", "eligible"),
	}
	for name, tc := range map[string]struct {
		dcs  []string
		pool string
		want int
	}{
		"dc1 default":  {[]string{"dc1"}, "", 1},
		"dc* default":  {[]string{"dc*"}, "default", 2},
		"any dc":       {nil, "", 3},
		"dc1 pool gpu": {[]string{"dc1"}, "gpu", 1},
		"dc1 pool all": {[]string{"dc1"}, "all", 2},
		"two dcs":      {[]string{"dc2", "eu1"}, "", 2},
		"no such pool": {[]string{"*"}, "cpu", 0},
	} {
		t.Run(name, func(t *testing.T) {
			j := &api.Job{Datacenters: tc.dcs}
			if tc.pool != "" {
				j.NodePool = new(tc.pool)
			}
			if got := usableNodes(j, nodes); got != tc.want {
				t.Errorf("usableNodes = %d, want %d", got, tc.want)
			}
		})
	}
}
