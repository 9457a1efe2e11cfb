package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkSlurmTaskCPU measures what each task's own shell costs in CPU
// inside a real job: from slurmstepd's exec of the task's bash to the end of
// its command (before `exec sleep`), read by the bash builtin `times` that
// the command runs last (the shell's user + system time; its children's,
// the `date` of the stamp, are not counted, and are the same for all
// kinds). Alternately for the jobshift, bare-env and bare jobs of
// BenchmarkSlurmStartRatio, at 16 and 64 tasks.
//
// Why: on the 2-core test hosts a 64-task start is bound by CPU (64 shells
// starting at once), so what each task's shell costs decides the start;
// the start ratio moves by ±30 ms from run to run, this by about ±0.2 ms
// per task. jobshift's task does the in-shell stage (drivers/slurm
// sh/stage.sh) and reads the shared environment from env.sh; bare-env's
// imports the same variables from its environment; bare's has none.
//
//	go test ./bench -run '^$' -bench SlurmTaskCPU -benchtime 3x
func BenchmarkSlurmTaskCPU(b *testing.B) {
	if !clusterUp() {
		b.Skip("no Slurm cluster (scripts/slurm-up.sh)")
	}
	kinds := []string{"jobshift", "bare-env", "bare"}
	for _, n := range []int{16, 64} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			per := map[string][]time.Duration{}
			rotate(b.N, kinds, func(_ int, kind string) {
				per[kind] = append(per[kind], taskCPUOnce(b, kind, n)...)
			})
			for _, kind := range kinds {
				b.ReportMetric(msOf(meanOf(per[kind])), "ms-cpu/"+kind)
			}
			b.ReportMetric(msOf(meanOf(per["jobshift"])-meanOf(per["bare-env"])), "ms-cpu/jobshift-over-bare-env")
		})
	}
}

// cpuTail ends a bench task's command: its shell's times into cpu/, named
// by step and rank (unique in a job: one step per role), then stayUp.
const cpuTail = `; times >"$BENCH_DIR/cpu/$SLURM_STEP_ID.$SLURM_PROCID"` + stayUp

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// taskCPUOnce runs one job of kind with n tasks and returns each task's
// shell CPU time.
func taskCPUOnce(b *testing.B, kind string, n int) []time.Duration {
	b.StopTimer()
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "cpu"), 0o755); err != nil {
		b.Fatal(err)
	}
	id, _, _ := submitBench(b, kind, n, dir, cpuTail, nil)
	defer func() {
		exec.Command("scancel", id).Run()
		waitGone(id)
	}()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "cpu", "*"))
		var got []time.Duration
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			if d, err := parseTimes(string(data)); err == nil {
				got = append(got, d)
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s job %s: %d of %d tasks wrote their times within 3 min (%s)", kind, id, len(got), n, dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parseTimes reads the output of bash's times builtin, two lines of
// "<min>m<sec>s <min>m<sec>s" (the shell's user and system time, then its
// children's), and returns the shell's user + system time. A file still
// being written (fewer than two lines) is an error.
func parseTimes(s string) (time.Duration, error) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) != 2 {
		return 0, fmt.Errorf("times: %d lines, want 2", len(lines))
	}
	f := strings.Fields(lines[0])
	if len(f) != 2 {
		return 0, fmt.Errorf("times: %q: want user and system", lines[0])
	}
	var sum time.Duration
	for _, v := range f {
		m, sec, ok := strings.Cut(strings.TrimSuffix(v, "s"), "m")
		if !ok || !strings.HasSuffix(v, "s") {
			return 0, fmt.Errorf("times: %q is not <min>m<sec>s", v)
		}
		mins, err1 := strconv.Atoi(m)
		secs, err2 := strconv.ParseFloat(sec, 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("times: %q is not <min>m<sec>s", v)
		}
		// bash prints milliseconds: rounded to µs, 0.003 is 3 ms exactly
		sum += time.Duration(mins)*time.Minute + time.Duration(math.Round(secs*1e6))*time.Microsecond
	}
	return sum, nil
}
