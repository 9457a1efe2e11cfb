package completion

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// TestVolcanoRestartDelay: a RestartPod or RestartTask policy's timeout
// delays the restart it matches (job_controller_util.go applyPolicies:
// delayAct.delay = policy.Timeout; job_controller.go AddDelayActionForJob,
// @v1.16.0-alpha.1); the kubelet's restarts, other actions and a policy
// without a timeout restart without it.
func TestVolcanoRestartDelay(t *testing.T) {
	timed := func(action string, secs float64, events ...string) jobs.VolcanoPolicy {
		p := pol(action, events...)
		p.TimeoutSeconds = secs
		return p
	}
	cases := map[string]struct {
		job  *jobs.Job
		role string
		code int
		want time.Duration
	}{
		"task RestartPod with 30s": {vcJob("Never", func(v *jobs.Volcano) {
			v.Tasks[1].Policies = []jobs.VolcanoPolicy{timed("RestartPod", 30, "PodFailed")}
		}), "worker", 1, 30 * time.Second},
		"job RestartTask with 1.5s, matched by *": {vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{timed("RestartTask", 1.5, "*")} }), "master", 2, 1500 * time.Millisecond},
		"exit-code RestartPod with 5s": {vcJob("Never", func(v *jobs.Volcano) {
			p := code("RestartPod", 3)
			p.TimeoutSeconds = 5
			v.Policies = []jobs.VolcanoPolicy{p}
		}), "worker", 3, 5 * time.Second},
		"another code: no policy, no delay": {vcJob("Never", func(v *jobs.Volcano) {
			p := code("RestartPod", 3)
			p.TimeoutSeconds = 5
			v.Policies = []jobs.VolcanoPolicy{p}
		}), "worker", 4, 0},
		"RestartPod without timeout":          {vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{pol("RestartPod", "PodFailed")} }), "worker", 1, 0},
		"the kubelet restarts OnFailure pods": {vcJob("OnFailure", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{timed("RestartPod", 30, "PodFailed")} }), "worker", 1, 0},
		"a success restarts nothing":          {vcJob("Never", func(v *jobs.Volcano) { v.Policies = []jobs.VolcanoPolicy{timed("RestartPod", 30, "*")} }), "worker", 0, 0},
		"first match wins: the task's policy without timeout": {vcJob("Never", func(v *jobs.Volcano) {
			v.Tasks[1].Policies = []jobs.VolcanoPolicy{pol("RestartPod", "PodFailed")}
			v.Policies = []jobs.VolcanoPolicy{timed("RestartPod", 30, "PodFailed")}
		}), "worker", 1, 0},
	}
	for name, c := range cases {
		if got := VolcanoRestartDelay(c.job, c.role, c.code); got != c.want {
			t.Errorf("%s: delay %s, want %s", name, got, c.want)
		}
	}
}

// TestMachineVolcanoRestartDelay: the local driver's in-place restart of
// a RestartPod policy with a 30 s timeout waits 30 s, the first restart
// too (the kubelet's back-off starts at 0), and the longer of the two
// after (10 s back-off < 30 s).
func TestMachineVolcanoRestartDelay(t *testing.T) {
	job := vcJob("Never", func(v *jobs.Volcano) {
		p := pol("RestartPod", "PodFailed")
		p.TimeoutSeconds = 30
		v.Tasks[1].Policies = []jobs.VolcanoPolicy{p}
	})
	steps := []step{
		obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
		obs("worker", 0, Failed, 1, 1, "backoff worker-0 30s"),
		tick(20),
		tick(31, "restart worker-0"),
		obs("worker", 0, Running, 0, 31),
		obs("worker", 0, Failed, 1, 32, "backoff worker-0 30s"),
		tick(62, "restart worker-0"),
	}
	m := NewMachine(PolicyOf(job), MachineConfig{Start: t0, RestartInPlace: true})
	for i, s := range steps {
		var got []string
		for _, a := range apply(m, s) {
			got = append(got, summary(a))
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d (%s %v %s): actions (-want +got):\n%s", i, s.op, s.ref, s.state, diff)
		}
	}
}
