package bench

// BenchmarkRender measures, in-process, what a command costs on a PAI job
// of 4, 64, 500 and 1000 tasks (ps ×2, the rest workers, the PAI v1
// example scaled), next to `validate` as the floor (read the file, plan
// it, check its contract):
//
//   - validate: load + translate.Build + contract.Check
//   - nomad, nomad-json, slurm: validate's work + the driver's Render
//   - explain-env: validate's work + every task's environment on the
//     sample topology, written as `jobshift explain -env` writes it
//
// BenchmarkCommand runs the jobshift binary itself (`validate`, `convert
// -to nomad|slurm`, `explain -env`, `version`) as whole processes on the
// same files: start-up included. Both report cpu-ns/op (user + system CPU
// time per operation) beside ns/op: on the shared 2-core host wall time is
// mostly the wait for a core.
//
//	go test ./bench -run '^$' -bench 'Render|Command' -benchtime 5x

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	_ "github.com/jobshift/jobshift/drivers/nomad"
	_ "github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

var renderSizes = []int{4, 64, 500, 1000}

// renderJobFile writes the PAI v1 example with 2 ps and tasks-2 workers.
func renderJobFile(b *testing.B, dir string, tasks int) string {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(), "examples", "pai-v1-ps-worker.json"))
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Replace(string(src), `"taskNumber": 2,
      "cpuNumber": 1,
      "memoryMB": 512,
      "gpuNumber": 0,
      "minSucceededTaskCount": 2`, fmt.Sprintf(`"taskNumber": %d,
      "cpuNumber": 1,
      "memoryMB": 512,
      "gpuNumber": 0,
      "minSucceededTaskCount": %d`, tasks-2, tasks-2), 1)
	if !strings.Contains(s, fmt.Sprintf(`"taskNumber": %d`, tasks-2)) {
		b.Fatal("examples/pai-v1-ps-worker.json changed: cannot scale its workers")
	}
	f := filepath.Join(dir, fmt.Sprintf("pai-%d.json", tasks))
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

func repoRoot() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), ".."))
}

// validateWork is what `jobshift validate` does with one file.
func validateWork(b *testing.B, path string) *translate.Plan {
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	plan, diags := translate.Build(job, &siteconfig.Config{}, nil, "alice")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	if d := contract.Check(plan.Job, contract.Options{User: plan.User, Contracts: plan.Contracts}); d.HasErrors() {
		b.Fatal(d)
	}
	return plan
}

// cpuClock reports the process's CPU time per operation as cpu-ns/op when
// the benchmark ends: on a loaded host (the test machine runs several
// builds at once) wall time mostly measures waiting for a core.
func cpuClock(b *testing.B) func() {
	start := processCPU()
	return func() { b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op") }
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkRender(b *testing.B) {
	dir := b.TempDir()
	for _, n := range renderSizes {
		path := renderJobFile(b, dir, n)
		b.Run(fmt.Sprintf("validate-%d", n), func(b *testing.B) {
			defer cpuClock(b)()
			for b.Loop() {
				validateWork(b, path)
			}
		})
		for _, target := range []string{"nomad", "nomad-json", "slurm"} {
			b.Run(fmt.Sprintf("%s-%d", target, n), func(b *testing.B) {
				defer cpuClock(b)()
				var size int
				for b.Loop() {
					plan := validateWork(b, path)
					d, err := drivers.New(target, drivers.Config{Site: plan.Site})
					if err != nil {
						b.Fatal(err)
					}
					art, err := d.Render(context.Background(), plan)
					if err != nil {
						b.Fatal(err)
					}
					size = len(art.Files[0].Data)
				}
				b.ReportMetric(float64(size), "out-bytes")
			})
		}
		b.Run(fmt.Sprintf("explain-env-%d", n), func(b *testing.B) {
			defer cpuClock(b)()
			var size int
			for b.Loop() {
				plan := validateWork(b, path)
				var buf bytes.Buffer
				explainEnv(b, plan, &buf)
				size = buf.Len()
			}
			b.ReportMetric(float64(size), "out-bytes")
		})
	}
}

// explainEnv writes what `jobshift explain -env` writes after its table:
// the shared variables once, then each task's own.
func explainEnv(b *testing.B, plan *translate.Plan, w io.Writer) {
	opts := contract.Options{User: plan.User, Contracts: plan.Contracts}
	c, err := contract.Compile(plan.Job, opts)
	if err != nil {
		b.Fatal(err)
	}
	bound, err := c.Bind(contract.SampleTopologyFor(plan.Job, opts))
	if err != nil {
		b.Fatal(err)
	}
	shared, err := bound.Shared()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range shared {
		fmt.Fprintf(w, "%s=%s\n", v.Name, v.Value)
	}
	for _, r := range plan.Job.Roles {
		for i := range r.Instances {
			env, err := bound.Own(jobs.TaskRef{Role: r.Name, Index: i}, contract.ProcessMain)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(w, "\n# %s-%d\n", r.Name, i)
			for _, v := range env {
				fmt.Fprintf(w, "%s=%s\n", v.Name, v.Value)
			}
		}
	}
}

// BenchmarkCommand: whole jobshift processes, start-up included.
func BenchmarkCommand(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "jobshift")
	build := exec.Command("go", "build", "-o", bin, "./cmd/jobshift")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(b *testing.B, args ...string) {
		var cpu time.Duration
		defer func() { b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "JOBSHIFT_CONFIG=", "HOME="+dir, "USER=alice")
			cmd.Stdout = io.Discard
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				b.Fatalf("jobshift %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	b.Run("version", func(b *testing.B) { run(b, "version") })
	for _, n := range renderSizes {
		path := renderJobFile(b, dir, n)
		b.Run(fmt.Sprintf("validate-%d", n), func(b *testing.B) { run(b, "validate", path) })
		for _, target := range []string{"nomad", "slurm"} {
			b.Run(fmt.Sprintf("convert-%s-%d", target, n), func(b *testing.B) { run(b, "convert", "-to", target, path) })
		}
		b.Run(fmt.Sprintf("explain-env-%d", n), func(b *testing.B) { run(b, "explain", "-env", path) })
	}
}
