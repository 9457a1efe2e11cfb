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
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// repoRoot is the module root: tasks run there (examples/ paths resolve),
// and every host sees it at the same path.
func repoRoot() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", ".."))
}

// clusterSh runs scripts/cluster.sh with args.
func clusterSh(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(repoRoot(), "scripts", "cluster.sh")}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("cluster.sh %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out.String(), nil
}

// cluster is one engine's cluster as cluster.sh describes it.
type cluster struct {
	engine string
	env    map[string]string  // the export lines of `cluster.sh env`
	hosts  map[string]string  // client host name -> address
	site   *siteconfig.Config // the site config cluster.sh wrote (JOBSHIFT_CONFIG)
}

// addrs is the set of the client hosts' addresses.
func (c *cluster) addrs() map[string]bool {
	m := map[string]bool{}
	for _, ip := range c.hosts {
		m[ip] = true
	}
	return m
}

var started = map[string]bool{}

func TestMain(m *testing.M) {
	if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
		for _, e := range []string{"nomad", "slurm"} {
			if _, err := clusterSh("env", e); err == nil {
				continue
			}
			// Slurm: 4 nodes, as the LeinaoPAI seed runs one task per node
			n := map[string]string{"nomad": "3", "slurm": "4"}[e]
			out, err := clusterSh("up", e, n)
			fmt.Fprint(os.Stderr, out)
			if err != nil {
				fmt.Fprintf(os.Stderr, "integration/multihost: %v\n", err)
				continue // the tests of that engine fail in need()
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

// need returns the engine's cluster, or skips (fails under CI=true).
func need(t *testing.T, engine string) *cluster {
	t.Helper()
	out, err := clusterSh("env", engine)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no %s cluster and CI=true: %v", engine, err)
		}
		t.Skipf("no %s cluster (start one with: scripts/cluster.sh up %s)", engine, engine)
	}
	c := &cluster{engine: engine, env: map[string]string{}, hosts: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			c.env[k] = v
		}
	}
	for _, k := range []string{"JOBSHIFT_CONFIG", map[string]string{"nomad": "NOMAD_ADDR", "slurm": "SLURM_CONF"}[engine]} {
		if c.env[k] == "" {
			t.Fatalf("cluster.sh env %s: no %s in %q", engine, k, out)
		}
		t.Setenv(k, c.env[k])
	}
	hosts, err := clusterSh("hosts", engine)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(hosts), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			t.Fatalf("cluster.sh hosts: line %q is not NAME IP", l)
		}
		c.hosts[f[0]] = f[1]
	}
	if len(c.hosts) < 3 {
		t.Fatalf("cluster.sh hosts %s: %d hosts, want at least 3", engine, len(c.hosts))
	}
	site, diags := siteconfig.LoadConfig(c.env["JOBSHIFT_CONFIG"])
	if diags.HasErrors() {
		t.Fatalf("site config %s: %v", c.env["JOBSHIFT_CONFIG"], diags)
	}
	c.site = site
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
	plan, diags := translate.Build(job, c.site, nil, "ci")
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
	hosts := c.addrs()
	used := map[string]bool{}
	for task, a := range addrs {
		if !hosts[a] {
			t.Errorf("%s: address %q is not one of the %s cluster's hosts %v", task, a, c.engine, c.hosts)
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
