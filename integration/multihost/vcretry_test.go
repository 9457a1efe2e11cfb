package multihost_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestVolcanoJobWideRestartsNomad: a Volcano Job's policy restarts in
// place are the job's on the several-client cluster, under raw_exec and in
// the clients' Docker daemons (state/running.go counts every RestartPod and
// RestartTask action in the one RetryCount, restarting.go fails the job at
// maxRetry, job_controller_actions.go killPods kills every pod of the task
// for a RestartTask, @v1.16.0-alpha.1): the watcher reads each task's
// record of its restarts on whatever client it runs, fails the job when
// two workers together reach maxRetry, and restarts the other worker,
// wherever it runs, for a RestartTask (a Docker task in a new container);
// and the one RetryCount of RestartPod and RestartJob alike, across
// restarts of the job (shared-retry: the next attempt's loop starts from
// the count in the job's meta). Each file's "# want:" line is the
// expected result.
func TestVolcanoJobWideRestartsNomad(t *testing.T) {
	c := need(t, "nomad")
	for name, cl := range map[string]*cluster{"raw_exec": c, "docker": nil} {
		for _, file := range []string{"volcano-policy-shared-retry.yaml", "volcano-policy-restartpod-two-pods.yaml", "volcano-policy-restartpod-timeout-two-pods.yaml", "volcano-policy-restarttask-all.yaml"} {
			t.Run(name+"/"+file, func(t *testing.T) {
				if cl == nil {
					cl = dockerCluster(t, c)
				}
				w, runs := wantOf(t, file), t.TempDir()
				if err := os.Chmod(runs, 0o777); err != nil { // the tasks' user may differ
					t.Fatal(err)
				}
				res, _ := runNomad(t, c, runsPlan(t, cl, file, runs), 4*time.Minute)
				if string(res.Phase) != w.Phase || res.ExitCode != w.Exit || res.Attempts != w.Attempts {
					t.Errorf("result = %+v, want %s, exit code %d, %d attempts", res, w.Phase, w.Exit, w.Attempts)
				}
				b, _ := os.ReadFile(filepath.Join(runs, "count"))
				if got := strings.TrimSpace(string(b)); got != w.Runs {
					t.Errorf("runs = %q, want %s", got, w.Runs)
				}
			})
		}
	}
}

// TestVolcanoSharedRetrySlurm: the same on the several-node Slurm
// cluster, the count in the state directory every node shares.
func TestVolcanoSharedRetrySlurm(t *testing.T) {
	runSlurmWant(t, need(t, "slurm"), "volcano-policy-shared-retry.yaml")
}

// runSlurmWant runs examples/testdata/file on the Slurm cluster c with
// $VC_RUNS and checks the verdict, attempts and runs of its "# want:" line.
func runSlurmWant(t *testing.T, c *cluster, file string) *slurmRun {
	t.Helper()
	w := wantOf(t, file)
	runs := t.TempDir()
	if err := os.Chmod(runs, 0o777); err != nil {
		t.Fatal(err)
	}
	r := runSlurm(t, runsPlan(t, c, file, runs), 4*time.Minute)
	if string(r.final.Phase) != w.Phase || r.final.ExitCode != w.Exit || r.final.Attempts != w.Attempts {
		t.Errorf("result = %+v, want %s, exit code %d, %d attempts", r.final, w.Phase, w.Exit, w.Attempts)
	}
	b, _ := os.ReadFile(filepath.Join(runs, "count"))
	if got := strings.TrimSpace(string(b)); got != w.Runs {
		t.Errorf("runs = %q, want %s", got, w.Runs)
	}
	return r
}

// wantOf is the "# want:" line of examples/testdata/file.
func wantOf(t *testing.T, file string) drivertest.VolcanoWant {
	for _, w := range drivertest.VolcanoWants(t, filepath.Join(repoRoot(), "examples", "testdata")) {
		if w.File == file {
			return w
		}
	}
	t.Fatalf("no want line for %s", file)
	return drivertest.VolcanoWant{}
}

// runsPlan plans examples/testdata/file on c with $VC_RUNS, where its tasks
// count their runs, the directory runs, given to every task as a hostPath
// volume at the same path (every host shares the machine's file system).
func runsPlan(t *testing.T, c *cluster, file, runs string) *translate.Plan {
	t.Helper()
	path := filepath.Join(repoRoot(), "examples", "testdata", file)
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	for _, r := range job.Roles {
		r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: runs})
		r.Volumes = append(r.Volumes, jobs.Volume{Name: "runs", Kind: "hostPath", Source: runs, MountPath: runs, Used: true})
	}
	site := *c.Site
	site.Volumes = append([]siteconfig.VolumeRule{{Pattern: runs, Path: runs}}, site.Volumes...)
	plan, diags := translate.Build(job, &site, nil, "ci")
	if diags.HasErrors() {
		t.Fatalf("plan %s: %v", path, diags)
	}
	plan.Options = map[string]string{}
	return plan
}

// TestVolcanoRestartTaskSlurm: a RestartTask restarts every pod of the
// task (job_controller_actions.go killPods, TargetTypeTask,
// @v1.16.0-alpha.1) on the several-node Slurm cluster: worker-0 exits 3
// on one node, and worker-1, whose first run would sleep a minute and
// fail, is stopped by its watcher on its own node (the role's generation
// in the attempt directory every node shares) and started again in
// place, uncounted; both succeed on their second runs.
func TestVolcanoRestartTaskSlurm(t *testing.T) {
	c := need(t, "slurm")
	r := runSlurmWant(t, c, "volcano-policy-restarttask-all.yaml")
	checkSpread(t, c, taskAddrs(r.plan.Job, r.topology(t))) // the two workers on two nodes
	errs, _ := os.ReadFile(filepath.Join(r.adir, "worker-1.err"))
	if !strings.Contains(string(errs), "stopped by the RestartTask of its task") {
		t.Errorf("worker-1's second run did not come from the RestartTask; its stderr:\n%s", errs)
	}
	if n, _ := os.ReadFile(filepath.Join(r.adir, "restarts.job")); strings.TrimSpace(string(n)) != "1" {
		t.Errorf("RetryCount %q, want 1: the RestartTask counts once", n)
	}
}
