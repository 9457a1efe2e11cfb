package local

// BenchmarkPrepare is what the local driver computes before it starts an
// attempt's processes (free ports, the contract bound once, every task's
// command line and environment) for a PAI job (ps ×2, the rest workers,
// contracts pai + pai-yarn) of 100 and 1000 tasks. It reports
// cpu-ns/task (user + system CPU per task: the shared test host is
// loaded, wall time mostly measures waiting for a core). Every task's
// environment names every task's address and ports (the OpenPAI
// contract), so building it is O(N) per task however it is done; what
// must not grow is the work per variable: compare cpu-ns/task/var.
//
//	go test ./drivers/local -run '^$' -bench Prepare -benchtime 5x

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

func BenchmarkPrepare(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("tasks-%d", n), func(b *testing.B) {
			job := paiV1("bench", 0, roleDef{name: "ps", n: 2, cmd: "true"}, roleDef{name: "worker", n: n - 2, cmd: "true"})
			plan := planOf(job)
			d, err := New(Options{RunDir: b.TempDir(), Dir: b.TempDir(), Env: []string{"PATH=/nonexistent"},
				ports: func(string) portSource { return &seqPorts{next: 20000} }})
			if err != nil {
				b.Fatal(err)
			}
			start := cpuNow()
			vars := 0
			for b.Loop() {
				specs, err := d.prepare(plan, "/runs/r1", 0)
				if err != nil {
					b.Fatal(err)
				}
				vars = len(specs[len(specs)-1].Env)
			}
			cpu := float64((cpuNow() - start).Nanoseconds()) / float64(b.N)
			b.ReportMetric(cpu/float64(n), "cpu-ns/task")
			b.ReportMetric(cpu/float64(n)/float64(vars), "cpu-ns/task/var")
			b.ReportMetric(float64(vars), "vars/task")
		})
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
