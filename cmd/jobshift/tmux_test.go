package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// statusLineRE matches the live status line: "<role>: <n> <state>..." (an
// optional "[attempt n] " first). Task output is prefixed "[role-i] ",
// jobshift's own lines "jobshift: " or "submitted ".
var statusLineRE = regexp.MustCompile(`^(\[attempt \d+\] )?[a-z][a-z0-9-]*: \d+ (pending|running|succeeded|failed|stopped)`)

// The live status line in a real terminal: tmux panes of 80x24 and 200x50
// run the binary on a job whose status line is wider than 80 columns while
// its tasks print; the screen must hold exactly one status line, never
// wider than the pane. Before, at 80 columns every redraw wrapped and left
// a stale copy.
func TestLiveLineTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux not installed (CI=true): scripts/test.sh installs it")
		}
		t.Skip("tmux not installed")
	}
	bin := sharedBinary(t)
	job := abs(t, "testdata/ops/live.json")
	for _, size := range []struct{ cols, rows int }{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "tmux.sock")
			tmux := func(args ...string) (string, error) {
				out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
				return string(out), err
			}
			script := fmt.Sprintf("cd %q && %q run -grace 1s %q; sleep 60", dir, bin, job)
			if out, err := tmux("new-session", "-d", "-s", "live", "-x", fmt.Sprint(size.cols), "-y", fmt.Sprint(size.rows),
				"env", "TERM=xterm-256color", "sh", "-c", script); err != nil {
				t.Fatalf("tmux new-session: %v\n%s", err, out)
			}
			defer func() {
				// Ctrl-C, and the run's verdict, before the run
				// directory is removed.
				tmux("send-keys", "-t", "live", "C-c")
				for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
					if out, _ := tmux("capture-pane", "-p", "-t", "live"); strings.Contains(out, "job live-line stopped") {
						break
					}
				}
				tmux("kill-server")
			}()
			if out, err := tmux("resize-window", "-t", "live", "-x", fmt.Sprint(size.cols), "-y", fmt.Sprint(size.rows)); err != nil {
				t.Logf("resize-window: %v %s", err, out) // older tmux sizes by new-session alone
			}
			// Wait until task output has scrolled the screen several
			// times over, with the status line redrawn after each line.
			var screen string
			deadline := time.Now().Add(2 * time.Minute)
			for {
				out, err := tmux("capture-pane", "-p", "-t", "live")
				if err != nil {
					t.Fatalf("capture-pane: %v\n%s", err, out)
				}
				screen = out
				if strings.Contains(screen, "output line 60 ") || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			if !strings.Contains(screen, "output line 60 ") {
				t.Fatalf("the job's output never reached line 60:\n%s", screen)
			}
			var status []string
			for _, l := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
				if statusLineRE.MatchString(l) {
					status = append(status, l)
				}
				if n := displayWidth(l); n > size.cols {
					t.Errorf("line of %d columns in a %d-column pane: %q", n, size.cols, l)
				}
			}
			if len(status) != 1 {
				t.Errorf("%d status lines on the screen, want exactly 1:\n%s", len(status), screen)
			}
		})
	}
}
