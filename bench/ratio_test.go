package bench

// Ratios the project's performance targets are stated in (issue 15),
// measured as CPU time so that a loaded host does not decide them:
//
//   - BenchmarkConvertRatio: `jobshift convert -to nomad|slurm` of a
//     500-task PAI job against `jobshift validate` of the same file, whole
//     processes (start-up included), run interleaved so both see the same
//     host; reports cpu-ratio (target ≤ 2).
//   - BenchmarkExplainEnvScaling: `explain -env`'s work (validate + every
//     task's environment written as explain -env writes it) at 100 and
//     1000 tasks; reports cpu-ns/task, which stays flat when the work is
//     linear in the tasks (before contract.Compile/Bind it grew tenfold).
//
// Ratios are reported, never asserted: timing belongs here, not in tests.
//
//	go test ./bench -run '^$' -bench 'ConvertRatio|ExplainEnvScaling' -benchtime 20x

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func BenchmarkConvertRatio(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "jobshift")
	build := exec.Command("go", "build", "-o", bin, "./cmd/jobshift")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	path := renderJobFile(b, dir, 500)
	cpuOf := func(args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "JOBSHIFT_CONFIG=", "HOME="+dir, "USER=alice")
		cmd.Stdout = io.Discard
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("jobshift %v: %v\n%s", args, err, stderr.String())
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	for _, target := range []string{"nomad", "slurm"} {
		b.Run(target+"-500", func(b *testing.B) {
			var validate, convert time.Duration
			for b.Loop() {
				validate += cpuOf("validate", path)
				convert += cpuOf("convert", "-to", target, path)
			}
			b.ReportMetric(float64(validate.Nanoseconds())/float64(b.N), "validate-cpu-ns/op")
			b.ReportMetric(float64(convert.Nanoseconds())/float64(b.N), "convert-cpu-ns/op")
			b.ReportMetric(float64(convert)/float64(validate), "cpu-ratio")
		})
	}
}

func BenchmarkExplainEnvScaling(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []int{100, 1000} {
		path := renderJobFile(b, dir, n)
		b.Run(fmt.Sprintf("tasks-%d", n), func(b *testing.B) {
			start := processCPU()
			for b.Loop() {
				plan := validateWork(b, path)
				explainEnv(b, plan, io.Discard)
			}
			cpu := float64((processCPU() - start).Nanoseconds()) / float64(b.N)
			b.ReportMetric(cpu/float64(n), "cpu-ns/task")
		})
	}
}
