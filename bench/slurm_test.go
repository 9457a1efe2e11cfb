package bench

// BenchmarkSlurmStart measures, on a real Slurm cluster (scripts/slurm-up.sh;
// skipped without one), the time from `sbatch` to the moment every user
// process of a job has started, for jobshift's batch script and for a bare
// script of identical shape (same allocation, one `srun --exact` step per
// role, the same user command), at 4, 16 and 64 tasks:
//
//	go test ./bench -run '^$' -bench SlurmStart -benchtime 3x
//
// The job has two roles, ps (a quarter of the tasks) and worker; every task
// runs `bash -c 'date +%s%N > $BENCH_DIR/<role>.<index>'`. Each iteration
// submits one job and waits until every stamp exists; the reported
// start-ms/op is the last stamp minus the time just before sbatch ran.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func benchJob(n int, dir string) *jobs.Job {
	ps := n / 4
	role := func(name string, count int) *jobs.Role {
		return &jobs.Role{Name: name, Instances: count, MinFailed: intp(1), MinSucceeded: intp(-1),
			Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 256},
			Ports:     []jobs.Port{{Label: "http", Count: 1}, {Label: "ssh", Count: 1}},
			Env:       []jobs.EnvVar{{Name: "BENCH_DIR", Value: dir}},
			// the index from the contract, as a PAI job reads it
			Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"bash", "-c",
				`date +%s%N > "$BENCH_DIR/$PAI_CURRENT_TASK_ROLE_NAME.$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"`}}}
	}
	return &jobs.Job{Name: fmt.Sprintf("bench%d", n), Source: jobs.Source{Format: jobs.FormatPAIv2, Path: "bench"},
		Contracts: []string{jobs.ContractPAI}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{role("ps", ps), role("worker", n-ps)}}
}

func intp(n int) *int { return &n }

// bareScript is the same allocation and steps without jobshift.
func bareScript(n int, dir string) string {
	ps := n / 4
	return fmt.Sprintf(`#!/bin/sh
#SBATCH --job-name=bare%d
#SBATCH --output=%s/bare-%%j.out
#SBATCH --ntasks=%d --cpus-per-task=1 --mem-per-cpu=256M --gres=none --distribution=block
export BENCH_DIR=%s
srun --exact --job-name=ps --ntasks=%d --cpus-per-task=1 --mem-per-cpu=256M --gres=none bash -c 'date +%%s%%N > "$BENCH_DIR/ps.$SLURM_PROCID"' &
srun --exact --job-name=worker --ntasks=%d --cpus-per-task=1 --mem-per-cpu=256M --gres=none bash -c 'date +%%s%%N > "$BENCH_DIR/worker.$SLURM_PROCID"' &
wait
`, n, dir, n, dir, ps, n-ps)
}

func clusterUp() bool {
	if os.Getenv("SLURM_CONF") == "" {
		if _, err := os.Stat("/tmp/jobshift-slurm/etc/slurm.conf"); err == nil {
			os.Setenv("SLURM_CONF", "/tmp/jobshift-slurm/etc/slurm.conf")
		}
	}
	return exec.Command("scontrol", "ping").Run() == nil
}

// waitStamps waits for n stamp files and returns the latest stamp.
func waitStamps(b *testing.B, dir string, n int, limit time.Duration) time.Time {
	deadline := time.Now().Add(limit)
	for {
		files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
		var stamps []int64
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				if v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
					stamps = append(stamps, v)
				}
			}
		}
		if len(stamps) >= n {
			var last int64
			for _, s := range stamps {
				last = max(last, s)
			}
			return time.Unix(0, last)
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d tasks started within %s (%s)", len(stamps), n, limit, dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until the job left the queue, so iterations do not overlap.
func waitGone(id string) {
	for i := 0; i < 600; i++ {
		out, _ := exec.Command("squeue", "-h", "-j", id).Output()
		if strings.TrimSpace(string(out)) == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func BenchmarkSlurmStart(b *testing.B) {
	if !clusterUp() {
		b.Skip("no Slurm cluster (scripts/slurm-up.sh)")
	}
	for _, n := range []int{4, 16, 64} {
		for _, kind := range []string{"jobshift", "bare"} {
			b.Run(fmt.Sprintf("%s-%d", kind, n), func(b *testing.B) {
				var total time.Duration
				for i := 0; i < b.N; i++ {
					total += slurmStartOnce(b, kind, n, &siteconfig.Config{})
				}
				b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "start-ms/op")
			})
		}
	}
}

// slurmStartOnce submits one job of n tasks (kind jobshift, with the site
// config site, or bare) and returns the time from the submission to the
// last task's start stamp.
func slurmStartOnce(b *testing.B, kind string, n int, site *siteconfig.Config) time.Duration {
	b.StopTimer()
	dir := b.TempDir()
	var id string
	var t0 time.Time
	if kind == "bare" {
		path := filepath.Join(dir, "bare.sh")
		os.WriteFile(path, []byte(bareScript(n, dir)), 0o755)
		t0 = time.Now()
		out, err := exec.Command("sbatch", "--parsable", path).Output()
		if err != nil {
			b.Fatal(err)
		}
		id = strings.TrimSpace(string(out))
	} else {
		plan := &translate.Plan{Job: benchJob(n, dir), User: "bench", Site: site,
			Options: map[string]string{"state_dir": filepath.Join(dir, "state"), "submit_dir": dir}}
		d := slurm.New(drivers.Config{Site: site})
		t0 = time.Now() // Submit = render + write + sbatch
		h, err := d.Submit(context.Background(), plan)
		if err != nil {
			b.Fatal(err)
		}
		id = h.ID
	}
	last := waitStamps(b, dir, n, 3*time.Minute)
	waitGone(id)
	return last.Sub(t0)
}
