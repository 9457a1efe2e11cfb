package completion

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// randomJob draws a job of any kind with random shapes and policies.
func randomJob(r *rand.Rand) *jobs.Job {
	counter := func() *int {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return ip(-1)
		}
		return ip(1 + r.IntN(3))
	}
	policies := []string{"", RestartNever, RestartOnFailure, RestartAlways, RestartExitCode}
	var j *jobs.Job
	switch r.IntN(5) {
	case 4: // a kind without rules
		j = &jobs.Job{Name: "m", Source: jobs.Source{Format: jobs.Format("other")},
			Roles: []*jobs.Role{{Name: "launcher", Instances: 1}, {Name: "worker", Instances: r.IntN(3)}}}
	case 0, 1:
		var roles []*jobs.Role
		for i := 0; i < 1+r.IntN(3); i++ {
			roles = append(roles, paiRole(fmt.Sprintf("r%d", i), 1+r.IntN(3), counter(), counter()))
		}
		j = paiV2(roles...)
		if r.IntN(2) == 0 {
			j.Source.Format = jobs.FormatPAIv1
		}
	case 2:
		types := []string{"chief", "master", "ps", "worker", "evaluator"}
		var roles []*jobs.Role
		for _, rt := range types {
			if r.IntN(2) == 0 {
				roles = append(roles, kfRole(rt, r.IntN(3), policies[r.IntN(len(policies))]))
			}
		}
		j = tfJob(roles...)
		j.Completion.EnableDynamicWorker = r.IntN(2) == 0
		if r.IntN(2) == 0 {
			j.Completion.SuccessPolicy = "AllWorkers"
		}
	case 3:
		var roles []*jobs.Role
		if r.IntN(3) > 0 {
			roles = append(roles, kfRole("master", 1, policies[r.IntN(len(policies))]))
		}
		roles = append(roles, kfRole("worker", 1+r.IntN(3), policies[r.IntN(len(policies))]))
		j = ptJob(roles...)
		if r.IntN(3) == 0 {
			j.Extras.ElasticPolicy = map[string]any{}
		}
	}
	if r.IntN(2) == 0 {
		j.Retry.BackoffLimit = ip(r.IntN(4))
	}
	j.Retry.CleanPodPolicy = []string{"", "Running", "All", "None"}[r.IntN(4)]
	return j
}

// TestDecideProperties drives random jobs through random task-end
// sequences, the way a driver would (Seq grows, Stop-listed tasks are
// stopped, though some end on their own first), and checks after every
// event:
//   - the verdict is monotone: once final, it never changes;
//   - Stop and Keep never list a terminal task, and together list every
//     non-terminal task once the verdict is final (none while running);
//   - once every task ended the verdict is final;
//   - the order of the tasks slice does not matter.
func TestDecideProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(seedFor(t, 4), 2026))
	for iter := 0; iter < 3000; iter++ {
		job := randomJob(r)
		var tasks []Task
		for _, role := range job.Roles {
			for i := 0; i < role.Instances; i++ {
				st := Pending
				if r.IntN(2) == 0 {
					st = Running
				}
				tasks = append(tasks, Task{TaskRef: ref(role.Name, i), State: st})
			}
		}
		var final *Verdict
		stopNow := map[TaskRef]bool{}
		for seq := int64(1); ; seq++ {
			var open []int
			for i, x := range tasks {
				if !x.State.Terminal() {
					open = append(open, i)
				}
			}
			if len(open) == 0 {
				break
			}
			i := open[r.IntN(len(open))]
			x := &tasks[i]
			switch {
			case stopNow[x.TaskRef] && r.IntN(4) > 0:
				x.State, x.ExitCode = Stopped, 143
			case r.IntN(10) == 0:
				x.State, x.ExitCode = Stopped, 143 // a user stop
			case r.IntN(2) == 0:
				x.State, x.ExitCode = Succeeded, 0
			default:
				x.State, x.ExitCode = Failed, []int{1, 2, 127, 128, 137, 143, 255}[r.IntN(7)]
			}
			x.Seq = seq

			v := Decide(job, tasks)
			ctx := fmt.Sprintf("iter %d seq %d job %+v tasks %+v", iter, seq, job, tasks)
			if final != nil {
				got := v
				got.Stop, got.Keep = nil, nil
				want := *final
				want.Stop, want.Keep = nil, nil
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("verdict changed after it was final (-first +now):\n%s\n%s", diff, ctx)
				}
			} else if v.Phase.Done() {
				final = &v
			}
			listed := map[TaskRef]int{}
			for _, x := range append(append([]TaskRef{}, v.Stop...), v.Keep...) {
				listed[x]++
			}
			for _, x := range tasks {
				switch {
				case x.State.Terminal() && listed[x.TaskRef] > 0:
					t.Fatalf("terminal task %v listed in Stop/Keep: %+v\n%s", x.TaskRef, v, ctx)
				case !x.State.Terminal() && v.Phase.Done() && listed[x.TaskRef] != 1:
					t.Fatalf("open task %v listed %d times in Stop/Keep: %+v\n%s", x.TaskRef, listed[x.TaskRef], v, ctx)
				}
			}
			if !v.Phase.Done() && len(listed) > 0 {
				t.Fatalf("running verdict lists tasks: %+v\n%s", v, ctx)
			}
			for _, s := range v.Stop {
				stopNow[s] = true
			}
			shuffled := append([]Task(nil), tasks...)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			if diff := cmp.Diff(v, Decide(job, shuffled)); diff != "" {
				t.Fatalf("order of the tasks slice changed the verdict:\n%s\n%s", diff, ctx)
			}
		}
		if len(tasks) > 0 && (final == nil || !final.Phase.Done()) {
			t.Fatalf("iter %d: every task ended but the verdict is %+v (job %+v tasks %+v)", iter, Decide(job, tasks), job, tasks)
		}
	}
}

// TestDecideNoPanic feeds malformed input: nil roles, duplicate roles and
// tasks, negative instances and indices, unknown states.
func TestDecideNoPanic(t *testing.T) {
	job := tfJob(nil, kfRole("worker", 2, ""), kfRole("worker", 1, ""), kfRole("ps", -3, ""))
	tasks := []Task{
		{TaskRef: ref("worker", 0), State: "weird"},
		tk("worker", 0, Failed, 1, 1),
		tk("worker", -1, Failed, 1, 2),
		tk("", 0, Succeeded, 0, 3),
	}
	// The first worker role wins, worker-0's first report ("weird", not
	// terminal) wins: nothing has ended.
	want := Verdict{Phase: PhaseRunning, Reason: "0 of 2 tasks ended"}
	if diff := cmp.Diff(want, Decide(job, tasks)); diff != "" {
		t.Errorf("Decide (-want +got):\n%s", diff)
	}
	if v := Decide(nil, tasks); v.Phase != PhaseRunning {
		t.Errorf("Decide(nil) = %+v", v)
	}
	if v := Decide(&jobs.Job{}, nil); v.Phase != PhaseRunning {
		t.Errorf("Decide(empty job) = %+v", v)
	}
}

// TestRetryBounds replays long runs of failures with random exit codes and
// checks the limits hold: a PAI job with jobRetryCount n ≥ 0 gets at most n
// counted retries and only transient codes are retried uncounted; a
// Kubeflow job with backoffLimit B restarts at most max(B-1, 0) times in all
// (spec/kubeflow.md §1.4); a PAI task with taskRetryCount n at most n
// counted restarts.
func TestRetryBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(seedFor(t, 7), 11))
	codes := []int{1, 2, 127, 128, 130, 132, 134, 137, 139, 141, 143, 193, 196, 255}
	for iter := 0; iter < 2000; iter++ {
		n := r.IntN(4)
		job := with(paiV2(paiRole("worker", 1, ip(1), ip(1))), func(j *jobs.Job) { j.Retry.JobRetryCount = n })
		if r.IntN(2) == 0 {
			job.Source.Format = jobs.FormatPAIv1
		}
		counted := 0
		for step := 0; step < 50; step++ {
			code := codes[r.IntN(len(codes))]
			d := JobRetry(job, failedWith(code), counted)
			class := ClassifyPAIExit(PAIExitCode(code, PAIEra(job)), PAIEra(job))
			if d.Retry && !d.Counted && class != Transient {
				t.Fatalf("uncounted retry of a %s code %d: %+v", class, code, d)
			}
			if class == Permanent && d.Retry {
				t.Fatalf("permanent code %d retried: %+v", code, d)
			}
			if d.Counted {
				counted++
			}
			if counted > n {
				t.Fatalf("jobRetryCount %d: %d counted retries", n, counted)
			}
		}

		b := r.IntN(5)
		kf := with(tfJob(kfRole("worker", 2, []string{RestartOnFailure, RestartAlways, RestartExitCode}[r.IntN(3)])),
			func(j *jobs.Job) { j.Retry.BackoffLimit = ip(b) })
		total := 0
		for step := 0; step < 50; step++ {
			if TaskRestart(kf, "worker", codes[r.IntN(len(codes))], total) {
				total++
			}
		}
		if limit := max(b-1, 0); total > limit {
			t.Fatalf("backoffLimit %d: %d restarts, want at most %d", b, total, limit)
		}

		task := paiRole("worker", 1, ip(1), ip(1))
		task.TaskRetryCount = n
		nogang := with(paiV2(task), func(j *jobs.Job) { j.Retry.GangAllocation = false })
		counted = 0
		for step := 0; step < 50; step++ {
			if d := TaskRestartDecision(nogang, "worker", codes[r.IntN(len(codes))], counted); d.Counted {
				counted++
			}
		}
		if counted > n {
			t.Fatalf("taskRetryCount %d: %d counted restarts", n, counted)
		}
	}
}
