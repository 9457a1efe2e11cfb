package taskns

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkWrapperCPU measures what the task view costs each task's start
// in CPU on this node, as BENCHMARKS.md reports it (the Nomad start
// ratio's cause): the CPU time (user + system, of the process and of the
// children it waited for: wait4's rusage) of a caller in Go (this test
// binary, standing in for nomad-env) giving a task its view and execing
// `true`, less that of the same caller execing `true` at once; the median
// of 100 runs of each, interleaved. As root (Nomad's raw_exec tasks), for
// a spec like a PAI task's (host name, its /etc/hosts line, address).
// Kinds: direct (ExecDirect: nomad-env's path for a spec without binds),
// execroot (ExecRoot, then the script: nomad-env's path for a spec with
// binds, and for every spec before ExecDirect), script (the script alone,
// as Slurm and local run it).
//
//	go test ./drivers/taskns -run '^$' -bench WrapperCPU -benchtime 1x
func BenchmarkWrapperCPU(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("as root only (the task view of a Nomad raw_exec task)")
	}
	const path = "/usr/sbin:/usr/bin:/sbin:/bin"
	_, addr := nodeAddr(b)
	dir := openDir(b)
	s := Spec{Hostname: "worker-3", Addr: addr, Hosts: []Host{{Addr: addr, Names: []string{"worker-3"}}}, Scratch: filepath.Join(dir, "scratch")}
	data, err := s.Encode(ModeAuto)
	if err != nil {
		b.Fatal(err)
	}
	script := filepath.Join(dir, "taskns.sh")
	files := map[string]string{script: Script, filepath.Join(dir, "alone.spec"): string(data), filepath.Join(dir, "node.spec"): string(data) + NodeLines(path)}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	kinds := []struct{ name, steps, spec string }{
		{"true", "exec", ""}, {"direct", "direct", "node.spec"}, {"execroot", "execroot", "node.spec"}, {"script", "exec", "alone.spec"},
	}
	cpu := map[string][]time.Duration{}
	for b.Loop() {
		for range 100 {
			for _, k := range kinds {
				argv := []string{"true"}
				if k.spec != "" {
					argv = Wrap(script, filepath.Join(dir, k.spec), argv)
				}
				c := exec.Command(os.Args[0], argv...)
				c.Env = []string{"PATH=" + path, callerVar + "=" + k.steps}
				c.Dir = "/"
				if out, err := c.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v: %s", k.name, err, out)
				}
				cpu[k.name] = append(cpu[k.name], c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			}
		}
	}
	base := medianOf(cpu["true"])
	b.ReportMetric(ms(base), "ms-cpu/caller-exec-true")
	for _, k := range kinds[1:] {
		b.ReportMetric(ms(medianOf(cpu[k.name])-base), "ms-cpu/"+k.name)
	}
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
