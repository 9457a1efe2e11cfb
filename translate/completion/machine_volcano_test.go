package completion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// TestMachineVolcano runs Volcano's rules through the attempt machine, as
// the local driver and the Nomad watcher do (@v1.16.0-alpha.1 sources in
// volcano.go): RestartJob retries within maxRetry, RestartPod restarts in
// place, and the gang timeout raises Unknown.
func TestMachineVolcano(t *testing.T) {
	restartJob := vcJob("Never", func(v *jobs.Volcano) { v.MaxRetry = 2; v.Policies = []jobs.VolcanoPolicy{code("RestartJob", 3)} })
	restartPod := vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartPod", "PodFailed")} })
	unknown := vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartJob", "Unknown")} })
	kubelet := vcJob("OnFailure", func(v *jobs.Volcano) { v.Tasks[0].MaxRetry, v.Tasks[1].MaxRetry = 1, 1 })
	cases := []struct {
		name  string
		job   *jobs.Job
		cfg   MachineConfig
		steps []step
	}{
		{"exit code 3 → RestartJob: one retry under maxRetry 2, then Failed", restartJob, MachineConfig{}, []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("master", 0, Failed, 3, 1, "verdict failed 3 retry", "stop worker-0,worker-1"),
			obs("worker", 0, Stopped, 143, 2), obs("worker", 1, Stopped, 143, 2),
			ended("retry failed 3 retry"),
			next(),
			obs("master", 0, Running, 0, 3), obs("worker", 0, Running, 0, 3), obs("worker", 1, Running, 0, 3),
			obs("master", 0, Failed, 3, 4, "verdict failed 3", "stop worker-0,worker-1"),
			obs("worker", 0, Stopped, 143, 5), obs("worker", 1, Stopped, 143, 5),
			ended("end failed 3"),
		}},
		{"PodFailed → RestartPod: restarted in place until maxRetry", restartPod, MachineConfig{RestartInPlace: true}, []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 0, Failed, 1, 1, "restart worker-0"),
			obs("worker", 0, Running, 0, 1),
			obs("worker", 1, Failed, 1, 2, "restart worker-1"),
			obs("worker", 1, Running, 0, 2),
			// RetryCount 2 + 1 reaches maxRetry 3: Failed
			obs("worker", 0, Failed, 1, 3, "verdict failed 1", "stop master-0,worker-1"),
		}},
		// cache.go TaskFailed sums the restartCount of the task's own pods
		{"the kubelet's restarts count per task: master's do not use up the workers' maxRetry 1", kubelet, MachineConfig{RestartInPlace: true}, []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("master", 0, Failed, 1, 1, "restart master-0"),
			obs("master", 0, Running, 0, 1),
			obs("worker", 0, Failed, 1, 2, "restart worker-0"),
			obs("worker", 0, Running, 0, 2),
			// the workers' pods restarted once: TaskFailed, and no policy acts
			obs("worker", 1, Failed, 1, 3),
		}},
		{"the gang timeout raises Unknown → RestartJob", unknown, MachineConfig{Start: t0, GangTimeout: 60 * time.Second}, []step{
			obs("master", 0, Running, 0, 1),
			tick(61, "verdict failed 1 retry", "stop master-0,worker-0,worker-1"),
			obs("master", 0, Stopped, 143, 62),
			ended("retry failed 1 retry"),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMachine(PolicyOf(c.job), c.cfg)
			for i, s := range c.steps {
				var got []string
				for _, a := range apply(m, s) {
					got = append(got, summary(a))
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (%s %v %s): actions (-want +got):\n%s", i, s.op, s.ref, s.state, diff)
				}
			}
		})
	}
}

// TestMachineVolcanoSharedRetryCount: RestartPod, RestartTask and
// RestartJob all increment the job's one status.retryCount, never reset
// when the job restarts (state/running.go, state/pending.go), and
// restarting.go fails the job once RetryCount ≥ maxRetry, after the
// increment (@v1.16.0-alpha.1). maxRetry 3: the third restarting action
// fails the job, whichever kinds came before it.
func TestMachineVolcanoSharedRetryCount(t *testing.T) {
	shared := func(inPlace string) *jobs.Job {
		return vcJob("Never", func(v *jobs.Volcano) {
			v.Tasks[0].Policies = []jobs.VolcanoPolicy{code(inPlace, 3), code("RestartJob", 4)}
		})
	}
	start := []step{obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0)}
	restartJob := func(at int) []step {
		return []step{
			obs("master", 0, Failed, 4, at, "verdict failed 4 retry", "stop worker-0,worker-1"),
			obs("worker", 0, Stopped, 143, at+1), obs("worker", 1, Stopped, 143, at+1),
			ended("retry failed 4 retry"), next(),
		}
	}
	var podJobPod, jobTaskTask []step
	// exit 3 → RestartPod (RetryCount 1), exit 4 → RestartJob (2), exit 3
	// → RestartPod makes it 3 = maxRetry: Failed with the pod's code
	podJobPod = append(podJobPod, start...)
	podJobPod = append(podJobPod, obs("master", 0, Failed, 3, 1, "restart master-0"), obs("master", 0, Running, 0, 1))
	podJobPod = append(podJobPod, restartJob(2)...)
	podJobPod = append(podJobPod, start...)
	podJobPod = append(podJobPod, obs("master", 0, Failed, 3, 5, "verdict failed 3", "stop worker-0,worker-1"))
	// exit 4 → RestartJob (1), then in the next attempt exit 3 →
	// RestartTask (2), exit 3 again (3): Failed
	jobTaskTask = append(jobTaskTask, start...)
	jobTaskTask = append(jobTaskTask, restartJob(1)...)
	jobTaskTask = append(jobTaskTask, start...)
	jobTaskTask = append(jobTaskTask, obs("master", 0, Failed, 3, 4, "restart master-0"), obs("master", 0, Running, 0, 4),
		obs("master", 0, Failed, 3, 5, "verdict failed 3", "stop worker-0,worker-1"))
	cases := map[string]struct {
		job   *jobs.Job
		steps []step
	}{
		"RestartPod, RestartJob, RestartPod":   {shared("RestartPod"), podJobPod},
		"RestartJob, RestartTask, RestartTask": {shared("RestartTask"), jobTaskTask},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewMachine(PolicyOf(c.job), MachineConfig{RestartInPlace: true})
			for i, s := range c.steps {
				var got []string
				for _, a := range apply(m, s) {
					got = append(got, summary(a))
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (%s %v %s): actions (-want +got):\n%s", i, s.op, s.ref, s.state, diff)
				}
			}
		})
	}
}

// TestMachineVolcanoRestartsElsewhere: a target whose tasks restart
// themselves (the Nomad restart loop) adds their policy restarts to the
// job's RetryCount (AddPolicyRestarts) before Ended, and carries the whole
// count to the next attempt through Retries and NewAttempt. maxRetry 3:
// one RestartPod inside the task (1) and a RestartJob (2) run the job
// again; the next RestartJob makes 3 and fails it (state/running.go,
// restarting.go @v1.16.0-alpha.1).
func TestMachineVolcanoRestartsElsewhere(t *testing.T) {
	job := vcJob("Never", func(v *jobs.Volcano) { v.Tasks[0].Policies = []jobs.VolcanoPolicy{code("RestartJob", 4)} })
	m := NewMachine(PolicyOf(job), MachineConfig{})
	attempt := func(want ...string) []string {
		var got []string
		for _, a := range m.Observe(TaskEvent{TaskRef: TaskRef{Role: "master"}, State: Failed, ExitCode: 4, Time: t0}) {
			got = append(got, summary(a))
		}
		for i := range 2 {
			m.Observe(TaskEvent{TaskRef: TaskRef{Role: "worker", Index: i}, State: Stopped, ExitCode: 143, Time: t0})
		}
		return got
	}
	attempt()
	m.AddPolicyRestarts(1)
	if got := summary(m.Ended()[0]); got != "retry failed 4 retry" {
		t.Fatalf("attempt 1 ended: %s, want retry failed 4 retry", got)
	}
	if m.Retries() != 2 {
		t.Fatalf("Retries = %d, want the RetryCount 2", m.Retries())
	}
	m.NewAttempt(t0, 1, m.Retries())
	if d := cmp.Diff([]string{"verdict failed 4", "stop worker-0,worker-1"}, attempt()); d != "" {
		t.Errorf("attempt 2 (-want +got):\n%s", d)
	}
	if got := summary(m.Ended()[0]); got != "end failed 4" {
		t.Errorf("attempt 2 ended: %s, want end failed 4", got)
	}
}
