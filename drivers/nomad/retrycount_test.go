package nomad

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// vcRestartPodJob is a Volcano Job whose one task runs argv under
// exitCode 3 → RestartPod, maxRetry 3.
func vcRestartPodJob(argv ...string) *jobs.Job {
	three := 3
	v := &jobs.Volcano{MinAvailable: 1, MaxRetry: 3, Tasks: []jobs.VolcanoTask{{Name: "trainer", MinAvailable: 1, MaxRetry: 3,
		Policies: []jobs.VolcanoPolicy{{ExitCode: &three, Action: "RestartPod"}}}}}
	return &jobs.Job{Name: "vc", Source: jobs.Source{Format: jobs.FormatVolcano, Path: "job.yaml"},
		Completion: jobs.Completion{Kind: jobs.CompletionVolcano}, Extras: jobs.Extras{Volcano: v},
		Roles: []*jobs.Role{{Name: "trainer", Instances: 1, RestartPolicy: "Never",
			Command:   jobs.Command{Kind: jobs.CommandArgv, Command: argv[:1], Args: argv[1:]},
			Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 256}}}}
}

// TestRestartLoopVolcanoRetryCount: the loop's RestartPod restarts count
// from the job's RetryCount in the meta (NOMAD_META_jobshift_retries) and
// each prints the line the watcher counts. maxRetry 3, a task that always
// exits 3 (state/running.go increments RetryCount, restarting.go fails the
// job at RetryCount ≥ maxRetry, @v1.16.0-alpha.1): from 0, two restarts
// (3 runs); from 1, after one RestartJob, one restart (2 runs); from 2,
// none.
func TestRestartLoopVolcanoRetryCount(t *testing.T) {
	argv, loop := loopOf(t, vcRestartPodJob("sh", "-c", "exit 3"), map[string]string{OptRestartBackoff: "10ms"})
	if loop == "" {
		t.Fatal("no restart loop rendered")
	}
	for meta, restarts := range map[string]int{"": 2, "1": 1, "2": 0} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", loop, restartArg0}, argv[4:]...)...)
		cmd.Env = append(os.Environ(), "NOMAD_TASK_DIR="+t.TempDir(), "NOMAD_ALLOC_INDEX=0", "NOMAD_META_jobshift_retries="+meta)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("meta %q: loop ended with %v, want exit status 3", meta, err)
		}
		if got := countRetryLines(strings.NewReader(stderr.String())); got != restarts {
			t.Errorf("meta %q: %d RetryCount lines, want %d:\n%s", meta, got, restarts, stderr.String())
		}
	}
}

// The watcher counts only policy restarts (policyRestartsPossible): the
// kubelet's restarts under OnFailure are not in RetryCount.
func TestPolicyRestartsPossible(t *testing.T) {
	if !policyRestartsPossible(vcRestartPodJob("true")) {
		t.Error("exitCode 3 → RestartPod: want possible")
	}
	j := vcRestartPodJob("true")
	j.Roles[0].RestartPolicy = "OnFailure"
	if policyRestartsPossible(j) {
		t.Error("restartPolicy OnFailure: the kubelet restarts every failure, no policy sees one; want not possible")
	}
	if policyRestartsPossible(crashJob("OnFailure", nil, "true")) {
		t.Error("a PyTorchJob has no RetryCount")
	}
}
