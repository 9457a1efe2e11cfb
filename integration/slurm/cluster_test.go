// Package slurm_test runs jobshift's Slurm target against a real Slurm
// cluster: the one scripts/slurm-up.sh starts (SLURM_CONF, or the default
// /tmp/jobshift-slurm/etc/slurm.conf). The tests skip when no cluster
// answers, but fail when CI=true; with CI=true and root, TestMain starts the
// cluster itself (scripts/install-slurm.sh, scripts/slurm-up.sh) and stops
// it afterwards (scripts/slurm-down.sh).
package slurm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

const defaultConf = "/tmp/jobshift-slurm/etc/slurm.conf"

// repoRoot is the module root (tasks run there: examples/ paths resolve).
func repoRoot() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", ".."))
}

func clusterUp() bool {
	return exec.Command("sinfo", "-h").Run() == nil && exec.Command("scontrol", "ping").Run() == nil
}

var startedCluster bool

func TestMain(m *testing.M) {
	if os.Getenv("SLURM_CONF") == "" {
		if _, err := os.Stat(defaultConf); err == nil {
			os.Setenv("SLURM_CONF", defaultConf)
		}
	}
	if !clusterUp() && os.Getenv("CI") == "true" && os.Geteuid() == 0 {
		root := repoRoot()
		for _, s := range []string{"install-slurm.sh", "slurm-up.sh"} {
			cmd := exec.Command("bash", filepath.Join(root, "scripts", s))
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "integration/slurm: %s failed: %v\n", s, err)
				os.Exit(1)
			}
		}
		os.Setenv("SLURM_CONF", defaultConf)
		startedCluster = true
	}
	code := m.Run()
	if startedCluster {
		cmd := exec.Command("bash", filepath.Join(repoRoot(), "scripts", "slurm-down.sh"))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		_ = cmd.Run()
	}
	os.Exit(code)
}

// needCluster skips (or fails under CI=true) without a cluster.
func needCluster(t *testing.T) {
	t.Helper()
	if clusterUp() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Slurm cluster answers (sinfo/scontrol ping failed) and CI=true: start one with scripts/slurm-up.sh")
	}
	t.Skip("no Slurm cluster (start one with scripts/install-slurm.sh && scripts/slurm-up.sh)")
}

// run is one finished job.
type run struct {
	h      drivers.Handle
	job    *jobs.Job
	plan   *translate.Plan
	final  drivers.Result
	events []drivers.Event
	state  string // the job's state directory
}

func loadPlan(t *testing.T, path string, opts map[string]string) *translate.Plan {
	t.Helper()
	plan := loadSitePlan(t, path, &siteconfig.Config{})
	for k, v := range opts {
		plan.Options[k] = v
	}
	return plan
}

// loadSitePlan is the plan of the job file at path on site, its state in
// the test's own directory.
func loadSitePlan(t *testing.T, path string, site *siteconfig.Config) *translate.Plan {
	t.Helper()
	return loadUserPlan(t, path, site, "ci")
}

// loadUserPlan is loadSitePlan submitted by user.
func loadUserPlan(t *testing.T, path string, site *siteconfig.Config, user string) *translate.Plan {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(repoRoot(), path)
	}
	job, diags := load.Load(path, jobs.ReadOptions{})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	plan, diags := translate.Build(job, site, nil, user)
	if diags.HasErrors() {
		t.Fatalf("plan %s: %v", path, diags)
	}
	plan.Options = map[string]string{"state_dir": t.TempDir(), "submit_dir": repoRoot()}
	return plan
}

// submit runs a plan to its end (bounded by timeout).
func submit(t *testing.T, plan *translate.Plan, timeout time.Duration) *run {
	t.Helper()
	d := slurm.New(drivers.Config{Options: map[string]string{"watch_interval": "500ms"}})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	r := &run{h: h, job: plan.Job, plan: plan, state: h.Meta["state"]}
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := os.ReadFile(h.Meta["output"])
			t.Logf("batch output of job %s:\n%s", h.ID, out)
			errs, _ := filepath.Glob(filepath.Join(h.Meta["state"], "attempt-*", "*.err"))
			for _, e := range errs {
				if b, _ := os.ReadFile(e); len(b) > 0 {
					t.Logf("%s:\n%s", e, b)
				}
			}
			_ = d.Stop(context.Background(), h)
		}
	})
	ch, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatalf("watch: %v", err)
	}
	for e := range ch {
		r.events = append(r.events, e)
		if e.Final != nil {
			r.final = *e.Final
		}
	}
	if r.final.Phase == "" {
		t.Fatalf("job %s: no final event within %s", h.ID, timeout)
	}
	return r
}

// steps returns sacct's per-step states of a job ("<step> <state>"),
// waiting for sacct to catch up (it lags, spec/slurm.md §6).
func steps(t *testing.T, id string, want int) map[string]string {
	t.Helper()
	var m map[string]string
	for try := 0; try < 40; try++ {
		out, err := exec.Command("sacct", "-j", id, "--whole-hetjob=yes", "-P", "-n", "--format=JobID,State,ExitCode").Output()
		if err != nil {
			t.Fatalf("sacct: %v", err)
		}
		m = map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Split(l, "|")
			if len(f) >= 2 {
				st, _, _ := strings.Cut(f[1], " ")
				m[f[0]] = st
			}
		}
		if len(m) >= want {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	return m
}

// taskEnds is the last state reported per task.
func (r *run) taskStates() map[string]completion.State {
	m := map[string]completion.State{}
	for _, e := range r.events {
		if e.Task != nil {
			m[fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)] = e.State
		}
	}
	return m
}
