package drivertest

import (
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// NoNomadVariable fails the test unless the Nomad Variable at path is gone
// within 15 s (a verdict's clean-up may run a moment after the verdict is
// visible: the finisher records, then deletes).
func NoNomadVariable(t *testing.T, c *api.Client, path string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, _, err := c.Variables().Peek(path, nil)
		if err != nil {
			t.Fatalf("reading Nomad Variable %s: %v", path, err)
		}
		if v == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Nomad Variable %s (the job's secrets) still exists after the verdict: items %v", path, keys(v.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func keys(m api.VariableItems) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
