// Package multihost_test runs jobs across the several-host test clusters of
// scripts/cluster.sh (a Nomad server with N clients, slurmctld with N slurmd,
// every host its own network namespace and address): every task's
// environment against the contract oracle for where it really ran, tasks on
// at least three hosts, peers reached across hosts (the examples' mesh.py
// connects to every peer it was told about), nothing left behind.
//
// The tests use a cluster that is up (`scripts/cluster.sh env ENGINE`
// answers). Without one they skip, except under CI=true, where TestMain
// brings both clusters up as root (and takes down what it started), and a
// cluster that still does not answer is a failure.
package multihost_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/clustertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
)

// repoRoot is the module root: tasks run there (examples/ paths resolve),
// and every host sees it at the same path.
var repoRoot = clustertest.RepoRoot

// suite is the clusters the tests use: the instance JOBSHIFT_CLUSTER_ID
// names (the default one when unset). Slurm: 4 nodes, as the LeinaoPAI
// seed runs one task per node.
var suite = clustertest.Instance{Hosts: map[string]int{"nomad": 3, "slurm": 4}}

// cluster is one engine's cluster as cluster.sh describes it.
type cluster = clustertest.Cluster

func TestMain(m *testing.M) { os.Exit(suite.Main(m, "integration/multihost")) }

// need returns the engine's cluster, or skips (fails under CI=true); the
// test's environment names it (JOBSHIFT_CONFIG, NOMAD_ADDR or SLURM_CONF).
func need(t *testing.T, engine string) *cluster {
	t.Helper()
	c := suite.Need(t, engine)
	for _, k := range []string{"JOBSHIFT_CONFIG", map[string]string{"nomad": "NOMAD_ADDR", "slurm": "SLURM_CONF"}[engine]} {
		t.Setenv(k, c.Env[k])
	}
	return c
}

// loadPlan reads a job file (relative to the repository root) and plans it
// with the cluster's site config.
func loadPlan(t *testing.T, c *cluster, path string) *translate.Plan {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(repoRoot(), path)
	}
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	plan, diags := translate.Build(job, c.Site, nil, "ci")
	if diags.HasErrors() {
		t.Fatalf("plan %s: %v", path, diags)
	}
	plan.Options = map[string]string{}
	return plan
}

// checkSpread: every task address is one of the cluster's client hosts,
// and the job used at least 3 of them (all of them for smaller jobs): the
// cluster.sh site configs spread a job over 3 nodes (nomad and slurm
// spread_nodes).
func checkSpread(t *testing.T, c *cluster, addrs map[string]string) {
	t.Helper()
	hosts := c.Addrs()
	used := map[string]bool{}
	for task, a := range addrs {
		if !hosts[a] {
			t.Errorf("%s: address %q is not one of the %s cluster's hosts %v", task, a, c.Engine, c.Hosts)
		}
		used[a] = true
	}
	want := min(3, len(addrs))
	if len(used) < want {
		t.Errorf("tasks ran on %d host(s) %v, want at least %d: %v", len(used), keys(used), want, addrs)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parseEnv0 parses `env -0` output.
func parseEnv0(raw string) map[string]string {
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(raw, "\x00"), "\x00") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			env[k] = v
		}
	}
	return env
}

// haveTorch: the DDP examples need python3-torch (a failure under CI=true).
func haveTorch(t *testing.T) bool {
	t.Helper()
	if exec.Command("/usr/bin/python3", "-c", "import torch").Run() == nil {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("python3-torch is not installed for /usr/bin/python3 (CI=true)")
	}
	return false
}

// haveModule: a Python module for /usr/bin/python3 (a failure under CI=true).
func haveModule(t *testing.T, module string) bool {
	t.Helper()
	if exec.Command("/usr/bin/python3", "-c", "import "+module).Run() == nil {
		return true
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("python3-%s is not installed for /usr/bin/python3 (CI=true)", module)
	}
	return false
}
