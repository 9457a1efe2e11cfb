package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// sharedDir is an invocation directory with one file of "code" in it, and a
// sub-directory, so tests can tell what the tasks share.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shared.txt"), []byte("code\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// needOverlay skips when this machine cannot mount overlays (not root, no
// overlayfs): the links mode is tested on its own.
func needOverlay(t *testing.T, shared string) {
	t.Helper()
	if err := probeOverlay(shared, t.TempDir()); err != nil {
		t.Skipf("no overlay mounts here: %v", err)
	}
}

// The marker race of issue 10 item 11: four workers' preCommands write
// "marker" and the command reads it back. In a shared directory, workers
// overwrite each other's marker while another reads it; with a private
// directory per task every run passes. Run 20 times in each mode.
func TestMarkerRacePrivateDirs(t *testing.T) {
	for _, mode := range []workMode{workOverlay, workLinks} {
		t.Run(string(mode), func(t *testing.T) {
			shared := sharedDir(t)
			if mode == workOverlay {
				needOverlay(t, shared)
			}
			plan := loadPlan(t, filepath.Join("testdata", "workdir", "marker-race.yaml"))
			for i := 0; i < 20; i++ {
				res, dir, _ := runPlan(t, plan, Options{Dir: shared, work: mode})
				if res.Phase != completion.PhaseSucceeded {
					t.Fatalf("run %d: result = %+v, want succeeded (each worker reads its own marker)\n%s", i, res, outputOf(dir))
				}
				for w := 0; w < 4; w++ {
					got := readTrim(t, markerPath(mode, dir, w))
					if want := "worker-" + string(rune('0'+w)); got != want {
						t.Errorf("run %d: worker-%d's marker = %q, want %q", i, w, got, want)
					}
				}
			}
			if _, err := os.Lstat(filepath.Join(shared, "marker")); err == nil {
				t.Errorf("a marker reached the shared directory %s", shared)
			}
		})
	}
}

// markerPath is where worker w's marker lands: the overlay's upper layer
// of the task's start, or the links directory itself.
func markerPath(mode workMode, runDir string, w int) string {
	start := startDir(filepath.Join(runDir, "worker-"+string(rune('0'+w))), 0, 0)
	if mode == workOverlay {
		return filepath.Join(start, "files", "marker")
	}
	return filepath.Join(start, "wd", "marker")
}

func readTrim(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func outputOf(runDir string) string {
	b, _ := os.ReadFile(filepath.Join(runDir, "output.log"))
	return string(b)
}

// What a task sees: PAI_WORK_DIR is its private directory and its working
// directory; the shared directory's files are there; what it writes stays
// its own. Writes into a linked sub-directory reach the shared one in links
// mode only (documented); the overlay keeps them too.
func TestPrivateDirContents(t *testing.T) {
	script := `[ "$PAI_WORK_DIR" = "$(pwd)" ] || { echo "PAI_WORK_DIR=$PAI_WORK_DIR pwd=$(pwd)"; exit 2; }
echo "$PAI_WORK_DIR" > where
cat shared.txt > copy.txt
echo "from-$PAI_TASK_INDEX" > data/into-subdir-$PAI_TASK_INDEX`
	for _, mode := range []workMode{workOverlay, workLinks} {
		t.Run(string(mode), func(t *testing.T) {
			shared := sharedDir(t)
			if mode == workOverlay {
				needOverlay(t, shared)
			}
			job := paiV1("private", 0, roleDef{name: "worker", n: 2, cmd: "true", minF: intp(1), minS: intp(2)})
			job.Source.Format = jobs.FormatPAIv2
			job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: script}
			res, dir, _ := runJob(t, job, Options{Dir: shared, work: mode})
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result = %+v\n%s", res, outputOf(dir))
			}
			for w := 0; w < 2; w++ {
				task := filepath.Join(dir, "worker-"+string(rune('0'+w)))
				written := filepath.Join(startDir(task, 0, 0), "wd")
				if mode == workOverlay {
					written = filepath.Join(startDir(task, 0, 0), "files")
				}
				if got, want := readTrim(t, filepath.Join(written, "where")), privateDir(task, 0); got != want {
					t.Errorf("worker-%d: PAI_WORK_DIR = %q, want %q", w, got, want)
				}
				if got := readTrim(t, filepath.Join(written, "copy.txt")); got != "code" {
					t.Errorf("worker-%d read shared.txt as %q", w, got)
				}
			}
			ents, _ := os.ReadDir(shared)
			var top []string
			for _, e := range ents {
				top = append(top, e.Name())
			}
			if diff := cmp.Diff([]string{"data", "shared.txt"}, top); diff != "" {
				t.Errorf("shared directory entries (-want +got):\n%s", diff)
			}
			sub, _ := os.ReadDir(filepath.Join(shared, "data"))
			wantSub := 0
			if mode == workLinks {
				wantSub = 2 // through the link, into the shared sub-directory
			}
			if len(sub) != wantSub {
				t.Errorf("shared data/ holds %d files, want %d", len(sub), wantSub)
			}
		})
	}
}

// A restarted task gets a fresh private directory in overlay mode, as a
// restarted container gets a fresh writable layer: a file its first run
// wrote is gone, so every run fails the same way until backoffLimit.
func TestOverlayRestartIsFresh(t *testing.T) {
	shared := sharedDir(t)
	needOverlay(t, shared)
	job := kube(jobs.FormatPyTorchJob, "fresh", intp(3),
		kubeRole("master", "Master", 1, "OnFailure", "sh", "-c", "test ! -e seen || exit 7; touch seen; exit 1"))
	res, dir, _ := runJob(t, job, Options{Dir: shared, work: workOverlay})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 1 {
		t.Errorf("result = %+v, want failed with 1 (no run saw an earlier run's file)", res)
	}
	if diff := cmp.Diff([]string{"master-0/attempt-1", "master-0/attempt-1-restart-1", "master-0/attempt-1-restart-2"}, starts(t, dir)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
}

// The overlay exists only in the task's mount namespace: jobshift's own
// mount table never shows it, during or after the run.
func TestOverlayMountDoesNotLeak(t *testing.T) {
	shared := sharedDir(t)
	needOverlay(t, shared)
	job := paiV1("noleak", 0, roleDef{name: "worker", n: 1, cmd: "true", minF: intp(1), minS: intp(1)})
	job.Source.Format = jobs.FormatPAIv2
	job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: `grep -q " $PAI_WORK_DIR " /proc/self/mountinfo; sleep 0.5`}
	d, err := New(Options{Dir: shared, RunDir: filepath.Join(t.TempDir(), "run"), work: workOverlay})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := d.Submit(ctx, planOf(job))
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v: the task did not see its overlay mounted on PAI_WORK_DIR\n%s", res, outputOf(h.ID))
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mi), h.ID) {
		t.Errorf("jobshift's mount table shows a mount under the run directory %s", h.ID)
	}
}
