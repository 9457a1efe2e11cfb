// Package faults_test is the fault suite: jobs on the several-host clusters
// of scripts/cluster.sh with one fault injected each (a task SIGKILLed, a
// host lost, an agent or server restarted, jobshift itself killed, a
// deadline reached), checked against the source platform's rules and for
// what must never happen: a task left running on any host, an allocation
// or step left, two attempts (or two instances of a task) at once. The
// cases are data (cases_test.go); the tasks write their own start and end
// records (testdata/task.sh).
//
// The suite kills hosts and restarts agents, so it runs on its own
// instance of the clusters (JOBSHIFT_CLUSTER_ID, default 1 here), never on
// the default ones other tests share. Without its clusters it skips,
// except under CI=true, where TestMain brings them up as root (Nomad: 3
// clients without Docker, the jobs need none; Slurm: 4 nodes, so a job
// spread over 3 still fits after a host is lost) and takes them down.
package faults_test

import (
	"os"
	"testing"

	"github.com/jobshift/jobshift/internal/clustertest"
	"github.com/jobshift/jobshift/internal/drivertest"
)

var repoRoot = clustertest.RepoRoot

// suite is the suite's instance of the clusters.
var suite = clustertest.Instance{ID: clusterID(), NoDocker: true, Hosts: map[string]int{"nomad": 3, "slurm": 4}}

// clusterID is the cluster.sh instance of the suite.
func clusterID() string {
	if id := os.Getenv("JOBSHIFT_CLUSTER_ID"); id != "" {
		return id
	}
	return "1"
}

func TestMain(m *testing.M) { os.Exit(suite.Main(m, "integration/faults")) }

type cluster struct{ *clustertest.Cluster }

// need returns the engine's cluster of the suite's instance, or skips
// (fails under CI=true).
func need(t *testing.T, engine string) *cluster {
	t.Helper()
	c := &cluster{suite.Need(t, engine)}
	// The engines run in parallel: only the variables their own tools read
	// go into the process environment (NOMAD_ADDR beats the site config's
	// address in the Nomad driver, and may name the shared dev agent);
	// JOBSHIFT_CONFIG differs per engine and goes to each command (cli).
	for _, k := range []string{"NOMAD_ADDR", "SLURM_CONF"} {
		if v := c.Env[k]; v != "" {
			os.Setenv(k, v)
		}
	}
	return c
}

// helper is the jobshift binary cluster.sh built for the Nomad clients
// (the in-job finisher); the suite runs it as `jobshift run`, `status` and
// `controller` too. The Slurm site names none: one is built once.
func (c *cluster) helper(t *testing.T) string {
	t.Helper()
	if c.Site.Nomad != nil && c.Site.Nomad.Helper != "" {
		return c.Site.Nomad.Helper
	}
	return drivertest.Jobshift(t)
}
