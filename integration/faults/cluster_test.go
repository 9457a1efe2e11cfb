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
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/siteconfig"
)

func repoRoot() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", ".."))
}

// clusterID is the cluster.sh instance of the suite.
func clusterID() string {
	if id := os.Getenv("JOBSHIFT_CLUSTER_ID"); id != "" {
		return id
	}
	return "1"
}

// clusterSh runs scripts/cluster.sh on the suite's instance.
func clusterSh(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(), "scripts", "cluster.sh")}, args...)...)
	cmd.Env = append(os.Environ(), "JOBSHIFT_CLUSTER_ID="+clusterID(), "JOBSHIFT_CLUSTER_DOCKER=0")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("cluster.sh %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out.String(), nil
}

// hostCount is the size each engine's cluster is brought up with.
var hostCount = map[string]string{"nomad": "3", "slurm": "4"}

var started = map[string]bool{}

func TestMain(m *testing.M) {
	if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
		for _, e := range []string{"nomad", "slurm"} {
			if _, err := clusterSh("env", e); err == nil {
				continue
			}
			out, err := clusterSh("up", e, hostCount[e])
			fmt.Fprint(os.Stderr, out)
			if err != nil {
				fmt.Fprintf(os.Stderr, "integration/faults: %v\n", err)
				continue // that engine's cases fail in need()
			}
			started[e] = true
		}
	}
	code := m.Run()
	for e := range started {
		if _, err := clusterSh("down", e); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(code)
}

type cluster struct {
	engine string
	env    map[string]string
	hosts  map[string]string // name -> address
	site   *siteconfig.Config
}

// need returns the engine's cluster of the suite's instance, or skips
// (fails under CI=true).
func need(t *testing.T, engine string) *cluster {
	t.Helper()
	out, err := clusterSh("env", engine)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no %s cluster (instance %s) and CI=true: %v", engine, clusterID(), err)
		}
		t.Skipf("no %s cluster of instance %s (start one with: JOBSHIFT_CLUSTER_ID=%s scripts/cluster.sh up %s %s)",
			engine, clusterID(), clusterID(), engine, hostCount[engine])
	}
	c := &cluster{engine: engine, env: map[string]string{}, hosts: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			c.env[k] = v
		}
	}
	hosts, err := clusterSh("hosts", engine)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(hosts), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			c.hosts[f[0]] = f[1]
		}
	}
	// The engines run in parallel: only the variables their own tools read
	// go into the process environment (NOMAD_ADDR beats the site config's
	// address in the Nomad driver, and may name the shared dev agent);
	// JOBSHIFT_CONFIG differs per engine and goes to each command (cli).
	for _, k := range []string{"NOMAD_ADDR", "SLURM_CONF"} {
		if v := c.env[k]; v != "" {
			os.Setenv(k, v)
		}
	}
	site, diags := siteconfig.LoadConfig(c.env["JOBSHIFT_CONFIG"])
	if diags.HasErrors() {
		t.Fatalf("site config: %v", diags)
	}
	c.site = site
	return c
}

// helper is the jobshift binary cluster.sh built for the Nomad clients
// (the in-job finisher); the suite runs it as `jobshift run`, `status` and
// `controller` too. The Slurm site names none: one is built once.
func (c *cluster) helper(t *testing.T) string {
	t.Helper()
	if c.site.Nomad != nil && c.site.Nomad.Helper != "" {
		return c.site.Nomad.Helper
	}
	return drivertest.Jobshift(t)
}
