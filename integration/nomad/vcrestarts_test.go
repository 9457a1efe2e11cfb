package nomad_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
)

// TestVolcanoRetryCountNoTaskLogs: a Volcano Job's policy restarts in
// place count in the job's one RetryCount (state/running.go increments it
// for every RestartPod, RestartTask and RestartJob action, restarting.go
// fails the job at maxRetry, @v1.16.0-alpha.1) on a site with task_logs =
// false, where no task log can be read: the watcher reads the restart
// loops' records instead. Two workers that together reach maxRetry in
// place fail the job; the shared-retry job's RestartJob sees its earlier
// RestartPod (else it would run a third time and succeed). Each file's
// "# want:" line is the expected result, as in
// TestVolcanoPolicyTableOnNomad; integration/multihost runs the files in
// containers on several clients.
func TestVolcanoRetryCountNoTaskLogs(t *testing.T) {
	wants := map[string]drivertest.VolcanoWant{}
	for _, w := range drivertest.VolcanoWants(t, filepath.Join(agent.Repo(), "examples", "testdata")) {
		wants[w.File] = w
	}
	for _, file := range []string{"volcano-policy-restartpod-two-pods.yaml", "volcano-policy-shared-retry.yaml"} {
		t.Run(file, func(t *testing.T) {
			cfg := site()
			cfg.Nomad.TaskLogs = new(false)
			w, dir := wants[file], runsDir(t)
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", file), cfg)
			for _, r := range p.Job.Roles {
				r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
			}
			res, _, _ := runStates(t, p)
			if string(res.Phase) != w.Phase || res.ExitCode != w.Exit || res.Attempts != w.Attempts {
				t.Errorf("result = %+v, want %s, exit code %d, %d attempts", res, w.Phase, w.Exit, w.Attempts)
			}
			if n := runCount(t, dir); w.Runs != "" && n != w.Runs {
				t.Errorf("runs = %q, want %s", n, w.Runs)
			}
		})
	}
}

// TestVolcanoRestartTaskTwoWatchers: `jobshift run`'s watcher and the
// controller follow the same job, each reading the restart records and
// neither keeping state of its own (the controller's doc): worker-0's
// RestartTask restarts worker-1 once, not once per watcher (its second run
// would be its third), and the job succeeds as on Volcano
// (job_controller_actions.go killPods @v1.16.0-alpha.1). The job runs in
// a namespace of its own, the only one the controller serves, so the
// shared agent's other jobs are not the controller's.
func TestVolcanoRestartTaskTwoWatchers(t *testing.T) {
	const file, user = "volcano-policy-restarttask-all.yaml", "vctwo"
	c := agent.Client(t)
	ns := nomad.NamespaceFor(user)
	if _, err := c.Namespaces().Register(&api.Namespace{Name: ns, Description: "jobshift TestVolcanoRestartTaskTwoWatchers"}, nil); err != nil {
		t.Fatalf("creating namespace %s: %v", ns, err)
	}
	cfg := site()
	cfg.Nomad.NamespacePerUser = true
	path := filepath.Join(agent.Repo(), "examples", "testdata", file)
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	dir := runsDir(t)
	for _, r := range job.Roles {
		r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
	}
	p, diags := translate.Build(job, cfg, nil, user)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var log lockedLog
	go (&nomad.Controller{D: d.(*nomad.Driver), Every: 2 * time.Second, Namespace: ns,
		Log: hclog.New(&hclog.LoggerOptions{Output: &log})}).Run(ctx)
	res, _, id := runStates(t, p)
	defer c.Jobs().Deregister(id, true, &api.WriteOptions{Namespace: ns})
	if !strings.Contains(log.String(), "watching: job="+id) {
		t.Errorf("the controller did not watch the job:\n%s", log.String())
	}
	w := wantOf(t, file)
	if string(res.Phase) != w.Phase || res.ExitCode != w.Exit || res.Attempts != w.Attempts {
		t.Errorf("result = %+v, want %s, exit code %d, %d attempts", res, w.Phase, w.Exit, w.Attempts)
	}
	if n := runCount(t, dir); n != w.Runs {
		t.Errorf("runs = %q, want %s (worker-1 restarted once per watcher?); the controller's log:\n%s", n, w.Runs, log.String())
	}
}

// lockedLog is the controller's log, written by its watchers.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wantOf is the "# want:" line of examples/testdata/file.
func wantOf(t *testing.T, file string) drivertest.VolcanoWant {
	for _, w := range drivertest.VolcanoWants(t, filepath.Join(agent.Repo(), "examples", "testdata")) {
		if w.File == file {
			return w
		}
	}
	t.Fatalf("no want line for %s", file)
	return drivertest.VolcanoWant{}
}
