package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func mt(p string) time.Time {
	fi, err := os.Stat(p)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

func stamps(dir string) []time.Time {
	files, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	var out []time.Time
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
				out = append(out, time.Unix(0, v))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// scratch timeline: alternate jobshift / bare 64-task starts, print phases
func BenchmarkZZTimeline(b *testing.B) {
	if !clusterUp() {
		b.Skip()
	}
	n := 64
	if s := os.Getenv("ZZN"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	ms := func(a, t time.Time) string {
		if a.IsZero() {
			return "-"
		}
		return fmt.Sprint(a.Sub(t).Milliseconds())
	}
	for i := 0; i < b.N; i++ {
		// jobshift
		dir := b.TempDir()
		site := &siteconfig.Config{}
		plan := &translate.Plan{Job: benchJob(n, dir), User: "bench", Site: site,
			Options: map[string]string{"state_dir": filepath.Join(dir, "state"), "submit_dir": dir}}
		t0 := time.Now()
		h, err := slurm.New(drivers.Config{Site: site}).Submit(context.Background(), plan)
		if err != nil {
			b.Fatal(err)
		}
		tsub := time.Now()
		waitStamps(b, dir, n, 3*time.Minute)
		st := stamps(dir)
		ad := filepath.Join(dir, "state", h.ID, "attempt-0")
		var started []time.Time
		fs, _ := filepath.Glob(filepath.Join(ad, "started.*"))
		for _, f := range fs {
			started = append(started, mt(f))
		}
		sort.Slice(started, func(i, j int) bool { return started[i].Before(started[j]) })
		fmt.Printf("JS   sub %s task.sh %s env.sh %s srun0 %s srun1 %s started[0] %s started[-1] %s stamp[0] %s stamp[-1] %s\n",
			ms(tsub, t0), ms(mt(filepath.Join(ad, "task.sh")), t0), ms(mt(filepath.Join(ad, "env.sh")), t0),
			ms(mt(filepath.Join(ad, "srun.0")), t0), ms(mt(filepath.Join(ad, "srun.1")), t0),
			ms(started[0], t0), ms(started[len(started)-1], t0), ms(st[0], t0), ms(st[len(st)-1], t0))
		exec.Command("scancel", h.ID).Run()
		waitGone(h.ID)
		// bare
		dir = b.TempDir()
		path := filepath.Join(dir, "bare.sh")
		os.WriteFile(path, []byte(bareScript(n, dir)), 0o755)
		t0 = time.Now()
		out, err := exec.Command("sbatch", "--parsable", path).Output()
		if err != nil {
			b.Fatal(err)
		}
		tsub = time.Now()
		id := strings.TrimSpace(string(out))
		waitStamps(b, dir, n, 3*time.Minute)
		st = stamps(dir)
		fmt.Printf("BARE sub %s out %s stamp[0] %s stamp[-1] %s\n", ms(tsub, t0), ms(mt(filepath.Join(dir, "bare-"+id+".out")), t0), ms(st[0], t0), ms(st[len(st)-1], t0))
		exec.Command("scancel", id).Run()
		waitGone(id)
	}
}
