// Package clustertest is the test harness of the several-host clusters of
// scripts/cluster.sh, shared by the suites that run there
// (integration/multihost, integration/faults): running cluster.sh on one
// instance of the clusters, bringing them up under CI=true (and down after,
// when the suite started them), and reading a cluster that is up (its
// export lines, hosts and site config).
package clustertest

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

	"github.com/jobshift/jobshift/siteconfig"
)

// RepoRoot is the module root: every host sees it at the same path.
func RepoRoot() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", ".."))
}

// Instance is one instance of the cluster.sh clusters as a suite uses it.
type Instance struct {
	// ID is JOBSHIFT_CLUSTER_ID ("" or "0": the default clusters other
	// tests share; a suite that harms its hosts uses its own).
	ID string
	// NoDocker: Nomad clients without Docker (JOBSHIFT_CLUSTER_DOCKER=0),
	// for suites whose jobs need no containers.
	NoDocker bool
	// Hosts is the number of client hosts per engine the suite brings up.
	Hosts map[string]int
}

// Sh runs scripts/cluster.sh on the instance.
func (in Instance) Sh(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(RepoRoot(), "scripts", "cluster.sh")}, args...)...)
	cmd.Env = os.Environ()
	if in.ID != "" {
		cmd.Env = append(cmd.Env, "JOBSHIFT_CLUSTER_ID="+in.ID)
	}
	if in.NoDocker {
		cmd.Env = append(cmd.Env, "JOBSHIFT_CLUSTER_DOCKER=0")
	}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("cluster.sh %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out.String(), nil
}

// Name says which instance, for messages.
func (in Instance) Name() string {
	if in.ID == "" || in.ID == "0" {
		return "the default instance"
	}
	return "instance " + in.ID
}

// Main runs the suite's tests (m.Run). Under CI=true as root it first
// brings up every engine's cluster that is not up (a failure there is
// reported, and that engine's tests fail in Need), and takes down after
// the tests what it brought up. It returns the exit code for os.Exit.
func (in Instance) Main(m *testing.M, suite string) int {
	var started []string
	if os.Getenv("CI") == "true" && os.Geteuid() == 0 {
		for _, e := range []string{"nomad", "slurm"} {
			if _, err := in.Sh("env", e); err == nil {
				continue
			}
			out, err := in.Sh("up", e, fmt.Sprint(in.Hosts[e]))
			fmt.Fprint(os.Stderr, out)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", suite, err)
				continue
			}
			started = append(started, e)
		}
	}
	code := m.Run()
	for _, e := range started {
		if _, err := in.Sh("down", e); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return code
}

// Cluster is one engine's cluster as cluster.sh describes it.
type Cluster struct {
	Engine string
	Env    map[string]string  // the export lines of `cluster.sh env`
	Hosts  map[string]string  // client host name -> address
	Site   *siteconfig.Config // the site config cluster.sh wrote (JOBSHIFT_CONFIG)
}

// Addrs is the set of the client hosts' addresses.
func (c *Cluster) Addrs() map[string]bool {
	m := map[string]bool{}
	for _, ip := range c.Hosts {
		m[ip] = true
	}
	return m
}

// Need returns the engine's cluster of the instance, or skips the test
// (fails it under CI=true). It sets no environment: the caller decides
// (suites whose engines run in parallel cannot share t.Setenv).
func (in Instance) Need(t testing.TB, engine string) *Cluster {
	t.Helper()
	out, err := in.Sh("env", engine)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no %s cluster (%s) and CI=true: %v", engine, in.Name(), err)
		}
		pre := ""
		if in.ID != "" {
			pre = "JOBSHIFT_CLUSTER_ID=" + in.ID + " "
		}
		t.Skipf("no %s cluster (%s); start one with: %sscripts/cluster.sh up %s %d", engine, in.Name(), pre, engine, in.Hosts[engine])
	}
	c := &Cluster{Engine: engine, Env: map[string]string{}, Hosts: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "="); ok {
			c.Env[k] = v
		}
	}
	for _, k := range []string{"JOBSHIFT_CONFIG", map[string]string{"nomad": "NOMAD_ADDR", "slurm": "SLURM_CONF"}[engine]} {
		if c.Env[k] == "" {
			t.Fatalf("cluster.sh env %s: no %s in %q", engine, k, out)
		}
	}
	hosts, err := in.Sh("hosts", engine)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(hosts), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			t.Fatalf("cluster.sh hosts: line %q is not NAME IP", l)
		}
		c.Hosts[f[0]] = f[1]
	}
	if len(c.Hosts) < 3 {
		t.Fatalf("cluster.sh hosts %s: %d hosts, want at least 3", engine, len(c.Hosts))
	}
	site, diags := siteconfig.LoadConfig(c.Env["JOBSHIFT_CONFIG"])
	if diags.HasErrors() {
		t.Fatalf("site config %s: %v", c.Env["JOBSHIFT_CONFIG"], diags)
	}
	c.Site = site
	return c
}
