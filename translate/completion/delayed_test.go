package completion

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// timed is p with a timeout of secs.
func timed(p jobs.VolcanoPolicy, secs float64) jobs.VolcanoPolicy {
	p.TimeoutSeconds = secs
	return p
}

// TestMachineVolcanoDelayed: a policy with a timeout delays its action
// (volcano-sh/volcano @v1.16.0-alpha.1 job_controller_util.go
// applyPolicies sets delayAct.delay; job_controller.go processNextReq hands
// it to AddDelayActionForJob and skips the sync; the timer executes the
// action on the job's state then, and a finished job ignores it,
// state/finished.go). The expected actions are written from those files.
func TestMachineVolcanoDelayed(t *testing.T) {
	// worker's PodFailed → RestartJob after 5s; the gang is 1 pod, so the
	// tasks' minAvailable are not checked once every pod ended
	delayed := func(minAvailable int) *jobs.Job {
		return vcJob("Never", func(v *jobs.Volcano) {
			v.MinAvailable = minAvailable
			v.Tasks[1].Policies = []jobs.VolcanoPolicy{timed(pol("RestartJob", "PodFailed"), 5)}
		})
	}
	cases := []struct {
		name  string
		job   *jobs.Job
		steps []step
		phase Phase // Decide on the machine's tasks at the end
	}{
		{"the timeout runs out while the others run: RestartJob then", delayed(3), []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 0, Failed, 1, 1),
			tick(5),
			tick(6, "verdict failed 1 retry", "stop master-0,worker-1"),
		}, PhaseFailed},
		{"every pod ends before the timeout: the sync completes the job and the late RestartJob is ignored", delayed(1), []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 0, Failed, 1, 1),
			obs("worker", 1, Succeeded, 0, 2),
			obs("master", 0, Succeeded, 0, 3, "verdict succeeded 0"),
			tick(10),
		}, PhaseSucceeded},
		{"the held end is the last: no sync for it, its RestartJob is the verdict", delayed(1), []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 1, Succeeded, 0, 1),
			obs("master", 0, Succeeded, 0, 2),
			obs("worker", 0, Failed, 1, 3, "verdict failed 1 retry"),
		}, PhaseFailed},
		{"an immediate action of another pod decides before the timeout", vcJob("Never", func(v *jobs.Volcano) {
			v.Tasks[0].Policies = []jobs.VolcanoPolicy{pol("CompleteJob", "TaskCompleted")}
			v.Tasks[1].Policies = []jobs.VolcanoPolicy{timed(pol("AbortJob", "PodFailed"), 5)}
		}), []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 0, Failed, 1, 1),
			obs("master", 0, Succeeded, 0, 2, "verdict succeeded 0", "stop worker-1"),
			tick(7),
		}, PhaseSucceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewMachine(PolicyOf(c.job), MachineConfig{Start: t0})
			for i, s := range c.steps {
				var got []string
				for _, a := range apply(m, s) {
					got = append(got, summary(a))
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Fatalf("step %d (%s %v %s): actions (-want +got):\n%s", i, s.op, s.ref, s.state, diff)
				}
			}
			if got := Decide(c.job, m.Tasks()).Phase; got != c.phase {
				t.Errorf("Decide on the machine's tasks: %s, want %s", got, c.phase)
			}
		})
	}
}

// TestDecideVolcanoDelayed: Decide replays a held action where Task.Fired
// puts it, and not at all before.
func TestDecideVolcanoDelayed(t *testing.T) {
	job := vcJob("Never", func(v *jobs.Volcano) {
		v.MinAvailable = 1
		v.Tasks[1].Policies = []jobs.VolcanoPolicy{timed(pol("RestartJob", "PodFailed"), 5)}
	})
	fired := func(tk Task, at int64) Task { tk.Fired = at; return tk }
	cases := map[string]struct {
		tasks []Task
		phase Phase
	}{
		"held, not fired: running":          {[]Task{run("master", 0), tk("worker", 0, Failed, 1, 1), run("worker", 1)}, PhaseRunning},
		"fired before the others ended":     {[]Task{tk("master", 0, Succeeded, 0, 4), fired(tk("worker", 0, Failed, 1, 1), 2), tk("worker", 1, Succeeded, 0, 3)}, PhaseFailed},
		"the others ended before it fired":  {[]Task{tk("master", 0, Succeeded, 0, 2), fired(tk("worker", 0, Failed, 1, 1), 4), tk("worker", 1, Succeeded, 0, 3)}, PhaseSucceeded},
		"held and last: fires, no sync":     {[]Task{tk("master", 0, Succeeded, 0, 1), tk("worker", 0, Failed, 1, 3), tk("worker", 1, Succeeded, 0, 2)}, PhaseFailed},
		"held, not last, never fired: sync": {[]Task{tk("master", 0, Succeeded, 0, 3), tk("worker", 0, Failed, 1, 1), tk("worker", 1, Succeeded, 0, 2)}, PhaseSucceeded},
	}
	for name, c := range cases {
		v := Decide(job, c.tasks)
		if v.Phase != c.phase {
			t.Errorf("%s: %s (%s), want %s", name, v.Phase, v.Reason, c.phase)
		}
		if c.phase == PhaseFailed && v.PolicyAction != ActionRestartJob {
			t.Errorf("%s: action %q, want RestartJob", name, v.PolicyAction)
		}
	}
}
