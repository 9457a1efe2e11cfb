package completion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// TestMachineVolcanoRestartTask: a RestartTask restarts every pod of the
// task: state/running.go Execute passes the action's target to
// KillTarget, killPods with TargetTypeTask kills every pod of
// jobInfo.Pods[task], and RetryCount grows once; RestartPod kills only
// its pod (job_controller_actions.go @v1.16.0-alpha.1). The siblings'
// restarts are not counted and their ends decide nothing (a job-level
// PodFailed → AbortJob would fire on them); a sibling that ended keeps
// its end (jobshift's rule on every target, machine_vtask.go).
func TestMachineVolcanoRestartTask(t *testing.T) {
	job := func(timeout float64) *jobs.Job {
		j := vcJob("Never", func(v *jobs.Volcano) {
			v.MaxRetry = 10
			task := code("RestartTask", 3)
			task.TimeoutSeconds = timeout
			v.Tasks[1].Policies = []jobs.VolcanoPolicy{task, code("RestartPod", 4)}
			v.Policies = []jobs.VolcanoPolicy{pol("AbortJob", "PodFailed")}
		})
		j.Roles[1].Instances = 3
		return j
	}
	start := []step{obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0), obs("worker", 2, Running, 0, 0)}
	cases := []struct {
		name    string
		job     *jobs.Job
		steps   []step
		retries int
	}{
		{"the running siblings are stopped and started again, uncounted", job(0), []step{
			obs("worker", 0, Failed, 3, 5, "restart worker-0", "kill-restart worker-1,worker-2"),
			obs("worker", 0, Running, 0, 5),
			// a driver may see the kill's end as Failed: still no PodFailed
			obs("worker", 1, Failed, 143, 6, "restart worker-1"),
			obs("worker", 2, Stopped, 143, 6, "restart worker-2"),
			obs("worker", 1, Running, 0, 6), obs("worker", 2, Running, 0, 6),
			obs("worker", 0, Succeeded, 0, 7), obs("worker", 1, Succeeded, 0, 7), obs("worker", 2, Succeeded, 0, 7),
			obs("master", 0, Succeeded, 0, 8, "verdict succeeded 0"),
		}, 1},
		{"an ended sibling keeps its end; one waiting for its back-off restarts at once", job(0), []step{
			obs("worker", 2, Succeeded, 0, 1),
			obs("worker", 1, Failed, 4, 2, "restart worker-1"), // RestartPod: its pod only
			obs("worker", 1, Running, 0, 2),
			obs("worker", 1, Failed, 4, 3, "backoff worker-1 10s"),
			obs("worker", 0, Failed, 3, 4, "restart worker-0", "restart worker-1"),
			obs("worker", 0, Running, 0, 4), obs("worker", 1, Running, 0, 4),
			tick(13), // worker-1's back-off was cancelled
			obs("worker", 1, Failed, 4, 20, "restart worker-1"), // and its streak starts over
		}, 4},
		{"a policy's timeout: the siblings restart when the task does", job(5), []step{
			obs("worker", 0, Failed, 3, 1, "backoff worker-0 5s"),
			tick(6, "restart worker-0", "kill-restart worker-1,worker-2"),
			obs("worker", 0, Running, 0, 6),
			obs("worker", 2, Stopped, 143, 7, "restart worker-2"),
		}, 1},
		{"a verdict while a sibling is being stopped: it ends stopped", job(0), []step{
			obs("worker", 0, Failed, 3, 1, "restart worker-0", "kill-restart worker-1,worker-2"),
			obs("worker", 0, Running, 0, 1),
			obs("master", 0, Failed, 1, 2, "verdict failed 1", "stop worker-0,worker-1,worker-2"),
			obs("worker", 1, Stopped, 143, 3),
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMachine(PolicyOf(c.job), MachineConfig{RestartInPlace: true, Backoff: Backoff{Initial: 10 * time.Second, Max: 300 * time.Second}})
			for i, s := range append(append([]step{}, start...), c.steps...) {
				var got []string
				for _, a := range apply(m, s) {
					got = append(got, summary(a))
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (%s %v %s): actions (-want +got):\n%s", i, s.op, s.ref, s.state, diff)
				}
			}
			if m.Retries() != c.retries {
				t.Errorf("RetryCount %d, want %d", m.Retries(), c.retries)
			}
		})
	}
}
