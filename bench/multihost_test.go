package bench

// BenchmarkMultiHostStart measures submit -> every user process started on
// the several-host clusters of scripts/cluster.sh (a Nomad server with its
// clients, slurmctld with its slurmd hosts, each host its own network
// namespace), jobshift against a bare job of the same shape, at 16 and 64
// tasks, both engines in one run. The jobs and the clocks are those of
// BenchmarkNomadStart and BenchmarkSlurmStart; Slurm's jobshift job uses
// the site config cluster.sh wrote (NodeAddr addresses, spread over 3
// nodes). Each sub-benchmark also reports the host's 1-minute load average
// at its end (the machine is shared).
//
//	scripts/cluster.sh up nomad 3 && scripts/cluster.sh up slurm 4
//	go test ./bench -run '^$' -bench MultiHost -benchtime 1x

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/siteconfig"
)

// clusterEnv is the export lines of `scripts/cluster.sh env ENGINE`, or nil
// when that cluster is not up.
func clusterEnv(engine string) map[string]string {
	_, f, _, _ := runtime.Caller(0)
	out, err := exec.Command("bash", filepath.Join(filepath.Dir(f), "..", "scripts", "cluster.sh"), "env", engine).Output()
	if err != nil {
		return nil
	}
	env := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "="); ok {
			env[k] = v
		}
	}
	return env
}

// load1 is the machine's 1-minute load average.
func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func BenchmarkMultiHostStart(b *testing.B) {
	b.Run("nomad", func(b *testing.B) {
		env := clusterEnv("nomad")
		if env == nil {
			b.Skip("no multi-host Nomad cluster (scripts/cluster.sh up nomad 3)")
		}
		cfg := api.DefaultConfig()
		cfg.Address = env["NOMAD_ADDR"]
		c, err := api.NewClient(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Setenv("NOMAD_ADDR", env["NOMAD_ADDR"]) // the jobshift kind's watcher
		for _, n := range []int{16, 64} {
			for _, kind := range []string{"jobshift", "barrier", "bare"} {
				b.Run(fmt.Sprintf("%s-%d", kind, n), func(b *testing.B) { nomadStartRuns(b, c, kind, n) })
			}
		}
	})
	b.Run("slurm", func(b *testing.B) {
		env := clusterEnv("slurm")
		if env == nil {
			b.Skip("no multi-host Slurm cluster (scripts/cluster.sh up slurm 4)")
		}
		b.Setenv("SLURM_CONF", env["SLURM_CONF"])
		site, diags := siteconfig.LoadConfig(env["JOBSHIFT_CONFIG"])
		if diags.HasErrors() {
			b.Fatal(diags)
		}
		for _, n := range []int{16, 64} {
			for _, kind := range []string{"jobshift", "bare"} {
				b.Run(fmt.Sprintf("%s-%d", kind, n), func(b *testing.B) {
					var total time.Duration
					for i := 0; i < b.N; i++ {
						total += slurmStartOnce(b, kind, n, site)
					}
					b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "start-ms/op")
					b.ReportMetric(load1(), "load1")
				})
			}
		}
	})
}
