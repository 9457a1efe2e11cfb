package nomad_test

import (
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
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
