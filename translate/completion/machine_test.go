package completion

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// step is one input to the machine in a table test: obs (a task event at
// second at), tick (the clock at second at), stop (the user), ended (the
// driver saw every process end), next (NewAttempt).
type step struct {
	op    string
	ref   TaskRef
	state State
	code  int
	at    int
	want  []string // the actions, summarised by summary
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func sec(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

func obs(role string, i int, s State, code, at int, want ...string) step {
	return step{op: "obs", ref: ref(role, i), state: s, code: code, at: at, want: want}
}
func tick(at int, want ...string) step { return step{op: "tick", at: at, want: want} }
func stopStep(want ...string) step     { return step{op: "stop", want: want} }
func ended(want ...string) step        { return step{op: "ended", want: want} }
func next() step                       { return step{op: "next"} }

// summary writes an action as "kind details": enough to say what a driver
// does, without the human reasons.
func summary(a Action) string {
	refs := func(rs []TaskRef) string {
		var s []string
		for _, r := range rs {
			s = append(s, fmt.Sprintf("%s-%d", r.Role, r.Index))
		}
		return strings.Join(s, ",")
	}
	switch a.Kind {
	case ActRestart:
		return "restart " + refs(a.Tasks)
	case ActBackoff:
		return fmt.Sprintf("backoff %s %s", refs(a.Tasks), a.Wait)
	case ActKillRestart:
		return "kill-restart " + refs(a.Tasks)
	case ActStop:
		s := "stop " + refs(a.Tasks)
		if len(a.Cancelled) > 0 {
			s += " cancelled " + refs(a.Cancelled)
		}
		return s
	}
	s := fmt.Sprintf("%s %s %d", a.Kind, a.Verdict.Phase, a.Verdict.ExitCode)
	if a.Final {
		s += " final"
	}
	if a.Kind == ActVerdict && a.Retry.Retry || a.Kind == ActRetry {
		s += " retry"
	}
	return s
}

func apply(m *Machine, s step) []Action {
	switch s.op {
	case "obs":
		return m.Observe(TaskEvent{TaskRef: s.ref, State: s.state, ExitCode: s.code, Time: sec(s.at)})
	case "tick":
		return m.Tick(sec(s.at))
	case "stop":
		return m.Stop()
	case "ended":
		return m.Ended()
	case "next":
		m.NewAttempt(sec(s.at), -1, 0)
	}
	return nil
}

func TestMachineTable(t *testing.T) {
	paiPSWorker := paiV2(paiRole("ps", 1, ip(1), nil), paiRole("worker", 2, ip(1), ip(2)))
	paiRetry := with(paiV2(paiRole("worker", 1, ip(1), ip(1))), func(j *jobs.Job) { j.Retry.JobRetryCount = 1 })
	ptRestart := ptJob(kfRole("master", 1, RestartNever), kfRole("worker", 1, RestartOnFailure))
	tfDeadline := with(tfJob(kfRole("ps", 1, ""), kfRole("worker", 1, "")), func(j *jobs.Job) { j.Retry.ActiveDeadlineSeconds = i64(30) })
	bo := Backoff{Initial: 10 * time.Second, Max: 300 * time.Second}
	cases := []struct {
		name  string
		job   *jobs.Job
		cfg   MachineConfig
		steps []step
	}{
		{"pai: workers succeed, the ps is stopped", paiPSWorker, MachineConfig{}, []step{
			obs("ps", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			obs("worker", 0, Succeeded, 0, 5),
			obs("worker", 1, Succeeded, 0, 6, "verdict succeeded 0", "stop ps-0"),
			obs("ps", 0, Stopped, 143, 7),
			ended("end succeeded 0"),
		}},
		{"pai: a failure is retried once (jobRetryCount 1), then the job fails", paiRetry, MachineConfig{}, []step{
			obs("worker", 0, Running, 0, 0),
			obs("worker", 0, Failed, 3, 1, "verdict failed 3 retry"),
			ended("retry failed 3 retry"),
			ended(), // one retry per attempt
			next(),
			obs("worker", 0, Running, 0, 2),
			obs("worker", 0, Failed, 3, 3, "verdict failed 3"),
			ended("end failed 3"),
		}},
		{"pytorch OnFailure: first restart at once, then the back-off as ticks", ptRestart, MachineConfig{RestartInPlace: true, Backoff: bo}, []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0),
			obs("worker", 0, Failed, 1, 5, "restart worker-0"),
			obs("worker", 0, Running, 0, 5),
			obs("worker", 0, Failed, 1, 6, "backoff worker-0 10s"),
			tick(15),
			tick(16, "restart worker-0"),
			obs("worker", 0, Running, 0, 16),
			obs("worker", 0, Failed, 2, 17, "backoff worker-0 20s"),
			// the master ends the job while the worker waits: it is
			// stopped at once, never restarted
			obs("master", 0, Succeeded, 0, 18, "verdict succeeded 0", "stop worker-0 cancelled worker-0"),
			tick(40),
			ended("end succeeded 0"),
		}},
		{"tfjob deadline: failed 124, every task stopped, final", tfDeadline, MachineConfig{Start: t0}, []step{
			obs("ps", 0, Running, 0, 1), obs("worker", 0, Running, 0, 1),
			tick(29),
			tick(30, "verdict failed 124 final", "stop ps-0,worker-0"),
			obs("ps", 0, Stopped, 143, 31),
			obs("worker", 0, Stopped, 143, 31),
			ended("end failed 124 final"),
		}},
		{"user stop: stopped, 143, whatever the rules would say", paiPSWorker, MachineConfig{}, []step{
			obs("ps", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0), obs("worker", 1, Running, 0, 0),
			stopStep("stop ps-0,worker-0,worker-1"),
			obs("ps", 0, Stopped, 143, 1), obs("worker", 0, Stopped, 143, 1),
			obs("worker", 1, Failed, 1, 1), // ended badly while stopping: still a stop
			ended("end stopped 143 final"),
		}},
		{"stopped from outside (nomad job stop, scancel)", paiPSWorker, MachineConfig{}, []step{
			obs("ps", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0),
			obs("ps", 0, Stopped, 143, 1),
			obs("worker", 0, Stopped, 143, 1, "verdict stopped 143 final", "stop worker-1"),
			ended("end stopped 143 final"),
		}},
		{"gang timeout: half placed after the timeout fails the attempt", paiPSWorker, MachineConfig{Start: t0, GangTimeout: 60 * time.Second}, []step{
			obs("ps", 0, Pending, 0, 1), obs("worker", 0, Running, 0, 2),
			tick(60),
			// never placed tasks are stopped too: do not start them
			tick(61, "verdict failed 1", "stop ps-0,worker-0,worker-1"),
			obs("ps", 0, Stopped, 143, 62), obs("worker", 0, Stopped, 143, 62),
			ended("end failed 1"),
		}},
		{"no restart in place when the target restarts tasks itself", ptRestart, MachineConfig{}, []step{
			obs("master", 0, Running, 0, 0), obs("worker", 0, Running, 0, 0),
			obs("worker", 0, Failed, 1, 5, "verdict failed 1", "stop master-0"),
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

// TestMachineProperties drives random jobs through random event sequences
// the way a driver would (restarts start the task again, stopped tasks end
// Stopped, the clock moves, the user may stop) and checks:
//   - verdicts are monotone: within an attempt every verdict the machine
//     gives (ActVerdict, then ActRetry/ActEnd) is the first one, unless the
//     first came from the user's stop and the deadline replaced it;
//   - no task is both stopped and restarted in one attempt;
//   - at most one ActRetry or ActEnd per attempt, and the job ends;
//   - a task stopped by ActKillRestart (a Volcano RestartTask's sibling)
//     was running, and its end is answered by its restart unless a stop
//     came, never counted and never judged (propertyKilled);
//   - without RestartInPlace (the Nomad watcher) no action restarts or
//     stops a task for a restart.
func TestMachineProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(seedFor(t, 14), 2026))
	seen := map[ActionKind]int{}
	for iter := 0; iter < 2000; iter++ {
		job := randomJob(r)
		if r.IntN(3) == 0 {
			job = randomVolcanoJob(r)
		}
		if r.IntN(3) == 0 {
			job.Retry.ActiveDeadlineSeconds = i64(int64(5 + r.IntN(60)))
		}
		cfg := MachineConfig{Start: t0, RestartInPlace: r.IntN(2) == 0 || job.Extras.Volcano != nil && r.IntN(4) > 0, Backoff: Backoff{Initial: time.Second, Max: 8 * time.Second}}
		ctx := fmt.Sprintf("iter %d job %+v cfg %+v", iter, job, cfg)
		for _, k := range propertyRun(t, r, NewMachine(PolicyOf(job), cfg), ctx) {
			seen[k]++
		}
	}
	// The random runs must reach every action, or they prove little.
	for _, k := range []ActionKind{ActRestart, ActBackoff, ActStop, ActVerdict, ActRetry, ActEnd, ActKillRestart} {
		if seen[k] == 0 {
			t.Errorf("no random run produced %s", k)
		}
	}
	t.Logf("actions seen: %v", seen)
}

// openTasks is the tasks live marks, in a fixed order.
func openTasks(live map[TaskRef]bool) []TaskRef {
	var open []TaskRef
	for ref, ok := range live {
		if ok {
			open = append(open, ref)
		}
	}
	sort.Slice(open, func(i, j int) bool { return fmt.Sprint(open[i]) < fmt.Sprint(open[j]) })
	return open
}

// propertyKills checks a's restarts: none from a machine that does not
// restart in place (the Nomad watcher: its tasks restart themselves), and
// an ActKillRestart only of running tasks, which it records in killed.
func propertyKills(m *Machine, a Action, live, stopped, killed map[TaskRef]bool) error {
	if !m.cfg.RestartInPlace && (a.Kind == ActRestart || a.Kind == ActBackoff || a.Kind == ActKillRestart) {
		return fmt.Errorf("%s from a machine that does not restart in place", a.Kind)
	}
	for _, x := range a.Tasks {
		if a.Kind == ActKillRestart && (!live[x] || stopped[x] || killed[x]) {
			return fmt.Errorf("%v killed for a restart while not running (live %v stopped %v killed %v)", x, live[x], stopped[x], killed[x])
		}
		killed[x] = killed[x] || a.Kind == ActKillRestart
	}
	return nil
}

// propertyKilled ends x, which ActKillRestart stopped: it restarts
// (check observes its Running) unless a stop came, RetryCount stays, and
// no verdict follows.
func propertyKilled(t *testing.T, m *Machine, x TaskRef, stopping bool, now time.Time, check func([]Action), ctx string) {
	t.Helper()
	before := m.Retries()
	acts := m.Observe(TaskEvent{TaskRef: x, State: []State{Stopped, Failed}[int(now.UnixMilli())%2], ExitCode: 143, Time: now})
	restarted := false
	for _, a := range acts {
		if a.Kind == ActVerdict || a.Kind == ActStop {
			t.Fatalf("the end of %v, killed for its task's restart, was judged: %v\n%s", x, acts, ctx)
		}
		restarted = restarted || a.Kind == ActRestart && a.Tasks[0] == x
	}
	if restarted == stopping || m.Retries() != before {
		t.Fatalf("%v killed for its task's restart (stopping %v): actions %v, RetryCount %d → %d\n%s", x, stopping, acts, before, m.Retries(), ctx)
	}
	check(acts)
}

// randomVolcanoJob: a master and 1..3 workers whose exit codes 1 and 2
// match random policies (RestartTask among them, sometimes with a
// timeout), under a random maxRetry and restartPolicy.
func randomVolcanoJob(r *rand.Rand) *jobs.Job {
	actions := []string{ActionRestartTask, ActionRestartTask, ActionRestartTask, ActionRestartTask, ActionRestartPod, "RestartJob", "AbortJob", "CompleteJob"}
	j := vcJob([]string{"Never", "Never", "OnFailure"}[r.IntN(3)], func(v *jobs.Volcano) {
		v.MaxRetry = 2 + r.IntN(5)
		for c := 1; c <= 2; c++ {
			p := code(actions[r.IntN(len(actions))], c)
			if r.IntN(3) == 0 {
				p.TimeoutSeconds = float64(1 + r.IntN(5))
			}
			k := min(r.IntN(4), 1) // the workers' more often
			v.Tasks[k].Policies = append(v.Tasks[k].Policies, p)
		}
	})
	j.Roles[1].Instances = 1 + r.IntN(4)
	return j
}

func propertyRun(t *testing.T, r *rand.Rand, m *Machine, ctx string) (kinds []ActionKind) {
	t.Helper()
	now := t0
	live := map[TaskRef]bool{}
	for _, ref := range m.order {
		live[ref] = true
		m.Observe(TaskEvent{TaskRef: ref, State: Running, Time: now})
	}
	stopped, killed := map[TaskRef]bool{}, map[TaskRef]bool{}
	var first *Verdict
	overs, fromUser := 0, false
	var log []string
	check := func(acts []Action) {
		for _, a := range acts {
			log = append(log, summary(a))
			kinds = append(kinds, a.Kind)
			if err := propertyKills(m, a, live, stopped, killed); err != nil {
				t.Fatalf("%v: %v\n%s", err, log, ctx)
			}
			switch a.Kind {
			case ActRestart, ActBackoff:
				for _, x := range a.Tasks {
					if stopped[x] {
						t.Fatalf("%v restarted after it was stopped: %v\n%s", x, log, ctx)
					}
				}
				if a.Kind == ActRestart {
					live[a.Tasks[0]] = true
					m.Observe(TaskEvent{TaskRef: a.Tasks[0], State: Running, Time: now})
				}
			case ActStop:
				for _, x := range a.Tasks {
					stopped[x] = true
				}
			case ActVerdict, ActRetry, ActEnd:
				if a.Kind != ActVerdict {
					overs++
				}
				v := a.Verdict
				v.Stop, v.Keep = nil, nil
				if first == nil || fromUser && a.Final && v.ExitCode == deadlineExitCode {
					first, fromUser = &v, false
				} else if diff := cmp.Diff(*first, v); diff != "" && !(a.Kind == ActEnd && v.Phase == PhaseStopped && first.Phase == PhaseStopped) {
					t.Fatalf("verdict changed (-first +now):\n%s\n%v\n%s", diff, log, ctx)
				}
			}
		}
		if overs > 1 {
			t.Fatalf("%d retries/ends in one attempt: %v\n%s", overs, log, ctx)
		}
	}
	for step := 0; step < 200 && overs == 0; step++ {
		now = now.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
		open := openTasks(live)
		switch k := r.IntN(20); {
		case k == 0:
			acts := m.Stop()
			if m.user {
				fromUser = first == nil
			}
			check(acts)
		case k < 4 || len(open) == 0:
			check(m.Tick(now))
		default:
			x := open[r.IntN(len(open))]
			st, code := Succeeded, 0
			switch {
			case killed[x]:
				killed[x], live[x] = false, false
				propertyKilled(t, m, x, stopped[x], now, check, ctx)
				continue
			case stopped[x]:
				st, code = Stopped, 143
			case r.IntN(2) == 0:
				st, code = Failed, []int{1, 2, 130, 137, 143, 255}[r.IntN(6)]
			}
			live[x] = false
			check(m.Observe(TaskEvent{TaskRef: x, State: st, ExitCode: code, Time: now}))
		}
		if len(open) == 0 && m.NextTick().IsZero() {
			check(m.Ended())
		}
	}
	if overs == 0 {
		for _, ref := range openTasks(live) {
			live[ref] = false
			check(m.Observe(TaskEvent{TaskRef: ref, State: Stopped, ExitCode: 143, Time: now}))
		}
		check(m.Stop())
		check(m.Ended())
		if overs != 1 {
			t.Fatalf("the attempt did not end: %v\n%s", log, ctx)
		}
	}
	return kinds
}
