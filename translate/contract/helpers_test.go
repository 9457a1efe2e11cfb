package contract

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func intp(n int) *int { return &n }

// paiPorts are a PAI role's ports as the reader builds them: the user's
// labels in order, then ssh and http (added by the platform).
func paiPorts(user ...jobs.Port) []jobs.Port {
	return append(user, jobs.Port{Label: "ssh", Count: 1, Implicit: true}, jobs.Port{Label: "http", Count: 1, Implicit: true})
}

func paiRole(name string, n int, ports ...jobs.Port) *jobs.Role {
	return &jobs.Role{Name: name, Instances: n, Ports: paiPorts(ports...),
		Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 1024},
		MinFailed: intp(1), MinSucceeded: intp(n)}
}

func paiJob(name string, roles ...*jobs.Role) *jobs.Job {
	return &jobs.Job{Name: name, Source: jobs.Source{Format: jobs.FormatPAIv2}, Roles: roles,
		Contracts: []string{jobs.ContractPAI}}
}

// envText is e as NAME=VALUE lines (values quoted Go-style when they
// contain a newline, so one variable is one line).
func envText(e Env) string {
	var b strings.Builder
	for _, v := range e {
		val := v.Value
		if strings.ContainsAny(val, "\n\r") {
			val = "(quoted)" + strings.ReplaceAll(strings.ReplaceAll(val, "\r", `\r`), "\n", `\n`)
		}
		b.WriteString(v.Name + "=" + val + "\n")
	}
	return b.String()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// mustEval is Eval that fails the test on error.
func mustEval(t *testing.T, j *jobs.Job, topo Topology, role string, i int, opts Options) Env {
	t.Helper()
	env, err := Eval(j, topo, jobs.TaskRef{Role: role, Index: i}, opts)
	if err != nil {
		t.Fatalf("Eval %s-%d: %v", role, i, err)
	}
	return env
}

// subset checks that env has exactly the wanted values for the wanted
// names.
func subset(t *testing.T, env Env, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	m := env.Map()
	for k := range want {
		if v, ok := m[k]; ok {
			got[k] = v
		} else {
			got[k] = "<unset>"
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("variables differ (-want +got):\n%s", diff)
	}
}

func absent(t *testing.T, env Env, names ...string) {
	t.Helper()
	for _, n := range names {
		if v, ok := env.Lookup(n); ok {
			t.Errorf("%s=%q is set, want it absent", n, v)
		}
	}
}
