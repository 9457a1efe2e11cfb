package nomad

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
)

// A snapshot someone else wrote at the job's path before the coordinator
// (a forged one, an address carrying ssh configuration) is never taken as
// this attempt's: the coordinator replaces it with the one it built from
// the allocations (check-and-set on what it read). One identical to its
// own (another watcher's) is left as it is.
func TestAgentSnapshotNotTrusted(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	id := fmt.Sprintf("snaptrust-%d", time.Now().UnixNano())
	co := &coordinator{w: &watcher{c: c, id: id}, groups: []snapGroup{{name: "g"}}}
	path := TopologyPath(id, "g")
	defer c.Variables().Delete(path, nil)
	forged := api.VariableItems{"attempt": "0", "a0": "10.9.9.9\nProxyCommand sh -c id"}
	if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: forged}, nil); err != nil {
		t.Fatal(err)
	}
	ours := api.VariableItems{"attempt": "0", "a0": "10.0.0.1"}
	if err := co.write(t.Context(), ours); err != nil {
		t.Fatal(err)
	}
	v, _, err := c.Variables().Read(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(v.Items, ours) {
		t.Fatalf("the snapshot is %v, want the coordinator's %v", v.Items, ours)
	}
	if err := co.write(t.Context(), ours); err != nil {
		t.Fatal(err)
	}
	again, _, _ := c.Variables().Read(path, nil)
	if again.ModifyIndex != v.ModifyIndex {
		t.Errorf("an identical snapshot was written again (index %d → %d)", v.ModifyIndex, again.ModifyIndex)
	}
}
