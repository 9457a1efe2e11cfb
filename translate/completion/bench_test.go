package completion

import (
	"fmt"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// BenchmarkDecide measures one Decide call on a job whose tasks all ended
// (the most replay work), at several sizes: ps×n/10, worker×n.
func BenchmarkDecide(b *testing.B) {
	for _, n := range []int{4, 64, 1024} {
		for _, kind := range []string{"pai", "tf"} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				job := paiV2(paiRole("ps", n/10+1, ip(-1), ip(-1)), paiRole("worker", n, ip(n), ip(n+1)))
				if kind == "tf" {
					job = with(tfJob(kfRole("ps", n/10+1, ""), kfRole("worker", n, "")), func(j *jobs.Job) {
						j.Completion.SuccessPolicy = "AllWorkers"
					})
				}
				var tasks []Task
				seq := int64(0)
				for _, r := range job.Roles {
					for i := 0; i < r.Instances; i++ {
						seq++
						tasks = append(tasks, tk(r.Name, i, Succeeded, 0, seq))
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Decide(job, tasks)
				}
			})
		}
	}
}

// BenchmarkMachineAttempt measures a whole attempt through the attempt
// machine: every task starts, then ends one by one (the machine judges
// after each end, as the platforms do), then the attempt ends. Sizes are
// total tasks (ps 10%, workers the rest); BENCHMARKS.md compares 1000 with
// 100 tasks: a machine whose per-event work is O(1) amortised costs about
// 10x for 10x the tasks, one that replays every end on each event ~100x.
func BenchmarkMachineAttempt(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, kind := range []string{"pai", "tf"} {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				job := paiV2(paiRole("ps", n/10, ip(-1), ip(-1)), paiRole("worker", n-n/10, ip(n), ip(n+1)))
				if kind == "tf" {
					job = with(tfJob(kfRole("ps", n/10, ""), kfRole("worker", n-n/10, "")), func(j *jobs.Job) {
						j.Completion.SuccessPolicy = "AllWorkers"
					})
				}
				pol := PolicyOf(job)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m := NewMachine(pol, MachineConfig{RestartInPlace: true})
					for _, ref := range m.order {
						m.Observe(TaskEvent{TaskRef: ref, State: Running})
					}
					for _, ref := range m.order {
						m.Observe(TaskEvent{TaskRef: ref, State: Succeeded})
						m.Tick(time.Time{})
					}
					if acts := m.Ended(); len(acts) != 1 || acts[0].Kind != ActEnd {
						b.Fatalf("attempt did not end: %v", acts)
					}
				}
			})
		}
	}
}
