package slurm_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestCorpusScripts: every corpus file that reads and converts yields a
// script that passes shellcheck and `sbatch --test-only` on the test
// cluster. Files that do not convert must fail with an error, never a
// panic; their count is logged.
func TestCorpusScripts(t *testing.T) {
	corpus := filepath.Join(repoRoot(), "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not found at", corpus)
	}
	needCluster(t)
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed")
		}
		t.Skip("shellcheck not installed")
	}
	var files []string
	filepath.Walk(corpus, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	dir := t.TempDir()
	converted, skipped, tooLarge := 0, map[string]string{}, map[string]string{}
	for _, f := range files {
		rel, _ := filepath.Rel(corpus, f)
		job, diags := load.Load(f, jobs.ReadOptions{Lossy: true})
		if diags.HasErrors() || job == nil {
			skipped[rel] = "read: " + firstLine(diags.Error())
			continue
		}
		plan, diags := translate.Build(job, &siteconfig.Config{}, nil, "ci")
		if diags.HasErrors() {
			skipped[rel] = "plan: " + firstLine(diags.Error())
			continue
		}
		for _, layout := range []string{"auto", "packed"} {
			plan.Options = map[string]string{"layout": layout}
			a, err := slurm.New(drivers.Config{}).Render(context.Background(), plan)
			if err != nil {
				skipped[rel] = "render: " + firstLine(err.Error())
				break
			}
			path := filepath.Join(dir, strings.ReplaceAll(rel, "/", "_")+"."+layout+".sbatch")
			if err := os.WriteFile(path, a.Files[0].Data, 0o755); err != nil {
				t.Fatal(err)
			}
			// shellcheck is slow (≈1 s a script): the layouts differ only
			// in a few rendered lines, so one of them is checked
			if layout == "auto" {
				if out, err := exec.Command("shellcheck", path).CombinedOutput(); err != nil {
					t.Errorf("%s (%s): shellcheck:\n%s", rel, layout, out)
				}
			}
			out, err := exec.Command("sbatch", "--test-only", path).CombinedOutput()
			if big := tooBig(job); big != "" {
				// the test nodes have 64 CPUs, 250 GiB and 8 GPUs: Slurm
				// must refuse bigger tasks, and say why
				if err == nil || !strings.Contains(string(out), "Requested node configuration is not available") {
					t.Errorf("%s (%s): %s, yet sbatch --test-only said: %v %s", rel, layout, big, err, out)
				}
				tooLarge[rel] = big
			} else if small := clusterTooSmall(job); small != "" && err != nil && strings.Contains(string(out), "Requested node configuration is not available") {
				tooLarge[rel] = small
			} else if err != nil || !strings.Contains(string(out), "to start at") {
				t.Errorf("%s (%s): sbatch --test-only: %v\n%s", rel, layout, err, out)
			}
			if layout == "auto" {
				converted++
			}
		}
	}
	t.Logf("%d of %d corpus files converted and are shellcheck-clean; %d of them accepted by sbatch --test-only, %d refused as larger than the test cluster; %d did not convert:",
		converted, len(files), converted-len(tooLarge), len(tooLarge), len(skipped))
	var names []string
	for n := range skipped {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("  %s: %s", n, skipped[n])
	}
	if converted == 0 {
		t.Error("no corpus file converted")
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// tooBig names a task request larger than a test node (scripts/slurm-up.sh:
// 64 CPUs, 256000 MiB, 8 GPUs), or "".
func tooBig(job *jobs.Job) string {
	for _, r := range job.Roles {
		cpus := (r.Resources.CPUMilli + 999) / 1000
		switch {
		case cpus > 64:
			return fmt.Sprintf("role %s asks %d CPUs per task", r.Name, cpus)
		case r.Resources.MemoryMiB > 256000:
			return fmt.Sprintf("role %s asks %d MiB per task", r.Name, r.Resources.MemoryMiB)
		case r.Resources.GPU > 8:
			return fmt.Sprintf("role %s asks %d GPUs per task", r.Name, r.Resources.GPU)
		}
	}
	return ""
}

// clusterTooSmall names a job whose tasks each fit a test node but whose
// GPUs together exceed the test cluster's 4 nodes × 8 GPUs (the packed
// layout sizes every slot by the largest role), or "".
func clusterTooSmall(job *jobs.Job) string {
	sum, maxG, n := 0, 0, 0
	for _, r := range job.Roles {
		sum += r.Instances * r.Resources.GPU
		maxG = max(maxG, r.Resources.GPU)
		n += r.Instances
	}
	if sum > 32 || maxG*n > 32 {
		return fmt.Sprintf("the job needs %d GPUs (%d as packed slots); the test cluster has 32", sum, maxG*n)
	}
	return ""
}
