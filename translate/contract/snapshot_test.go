package contract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
)

// TestSnapshotTopology reads a snapshot of two roles written by hand: the
// ps role's two services (SynPort, then http) are p0 and p1, the worker's
// p2 and p3, task i being field i; a bad snapshot is an error naming the
// item, never a topology with a hole.
func TestSnapshotTopology(t *testing.T) {
	mk := func(name string, n int) *jobs.Role {
		return &jobs.Role{Name: name, Instances: n, Ports: []jobs.Port{{Label: "SynPort", Count: 1}, {Label: "http", Count: 1}}}
	}
	job := &jobs.Job{Name: "j", Roles: []*jobs.Role{mk("ps", 1), mk("worker", 2)}, Contracts: []string{jobs.ContractPAI}}
	good := map[string]string{"attempt": "0", "a0": "10.0.0.1", "p0": "2000", "p1": "2001",
		"a1": "10.0.0.2 10.0.0.3", "p2": "3000 3100", "p3": "3001 3101"}
	want := Topology{Roles: []RoleTopology{
		{Name: "ps", Tasks: []TaskTopology{{Addr: "10.0.0.1", Ports: map[string][]int{"SynPort": {2000}, "http": {2001}}}}},
		{Name: "worker", Tasks: []TaskTopology{
			{Addr: "10.0.0.2", Ports: map[string][]int{"SynPort": {3000}, "http": {3001}}},
			{Addr: "10.0.0.3", Ports: map[string][]int{"SynPort": {3100}, "http": {3101}}}}},
	}}
	got, err := SnapshotTopology(job, Options{}, good)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for name, tc := range map[string]struct {
		key, value, wantErr string
	}{
		"an address list too short": {"a1", "10.0.0.2", "item a1 names 1 tasks, the role has 2"},
		"an item missing":           {"p3", "", "has no item p3"},
		"a port that is no number":  {"p2", "3000 x", `item p2: "3000 x" is not a list of port numbers`},
		"a port out of range":       {"p0", "70000", `item p0: "70000" is not a list of port numbers`},
		"a port with a sign":        {"p0", "+2000", `is not a list of port numbers`},
		"a port with a leading 0":   {"p0", "02000", `is not a list of port numbers`},
		"port 0":                    {"p0", "0", `is not a list of port numbers`},
		// a forged snapshot: Nomad's env parser turns \n back into a
		// newline, and the ssh emulation writes the address into ssh_config
		"an address with a newline": {"a0", "10.0.0.1\nProxyCommand sh -c id", `item a0: "10.0.0.1\nProxyCommand sh -c id" is not a list of addresses`},
		"an address with a quote":   {"a1", `10.0.0.2 10.0.0.3"`, `is not a list of addresses`},
		"two blanks":                {"a1", "10.0.0.2  10.0.0.3", `is not a list of addresses`},
	} {
		items := map[string]string{}
		for k, v := range good {
			items[k] = v
		}
		if tc.value == "" {
			delete(items, tc.key)
		} else {
			items[tc.key] = tc.value
		}
		_, err := SnapshotTopology(job, Options{}, items)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", name, err, tc.wantErr)
		}
	}
}
