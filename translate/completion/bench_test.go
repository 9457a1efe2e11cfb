package completion

import (
	"fmt"
	"github.com/jobshift/jobshift/jobs"
	"testing"
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
// after each end, as the platforms do), then the attempt ends. The old
// driver loops called Decide after each end too: this is the cost every Go
// target pays per attempt.
func BenchmarkMachineAttempt(b *testing.B) {
	for _, n := range []int{4, 64, 1024} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			job := paiV2(paiRole("ps", n/10+1, ip(-1), ip(-1)), paiRole("worker", n, ip(n), ip(n+1)))
			pol := PolicyOf(job)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m := NewMachine(pol, MachineConfig{RestartInPlace: true})
				for _, ref := range m.order {
					m.Observe(TaskEvent{TaskRef: ref, State: Running})
				}
				for _, ref := range m.order {
					m.Observe(TaskEvent{TaskRef: ref, State: Succeeded})
				}
				if acts := m.Ended(); len(acts) != 1 || acts[0].Kind != ActEnd {
					b.Fatalf("attempt did not end: %v", acts)
				}
			}
		})
	}
}
