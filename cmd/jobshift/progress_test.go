package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

func progressJob() *jobs.Job {
	return &jobs.Job{Name: "j", Roles: []*jobs.Role{{Name: "ps", Instances: 2}, {Name: "worker", Instances: 2}}}
}

func ev(attempt int, role string, i int, s completion.State, code int) drivers.Event {
	return drivers.Event{Attempt: attempt, Task: &jobs.TaskRef{Role: role, Index: i}, State: s, ExitCode: code}
}

func TestProgressStatus(t *testing.T) {
	for name, tc := range map[string]struct {
		events []drivers.Event
		want   string
	}{
		"nothing started": {want: "ps: 2 pending | worker: 2 pending"},
		"running and done": {events: []drivers.Event{
			ev(0, "ps", 0, completion.Running, 0), ev(0, "ps", 1, completion.Running, 0),
			ev(0, "worker", 0, completion.Running, 0), ev(0, "worker", 1, completion.Running, 0),
			ev(0, "worker", 0, completion.Succeeded, 0)},
			want: "ps: 2 running | worker: 1 running, 1 succeeded"},
		// A task seen running again in the same attempt was restarted.
		"restart": {events: []drivers.Event{
			ev(0, "worker", 1, completion.Running, 0), ev(0, "worker", 1, completion.Failed, 1), ev(0, "worker", 1, completion.Running, 0)},
			want: "ps: 2 pending | worker: 1 pending, 1 running (1 restart)"},
		// A new attempt starts every task from pending again.
		"second attempt": {events: []drivers.Event{
			ev(0, "worker", 1, completion.Running, 0), ev(0, "worker", 1, completion.Failed, 1), ev(1, "ps", 0, completion.Running, 0)},
			want: "[attempt 2] ps: 1 pending, 1 running | worker: 2 pending"},
	} {
		t.Run(name, func(t *testing.T) {
			p := stillProgress(&bytes.Buffer{}, wide, progressJob())
			for _, e := range tc.events {
				p.event(e)
			}
			got := p.status()
			got = got[:strings.LastIndexByte(got, ' ')] // drop the elapsed time
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// On a terminal, output lines scroll above one status line rewritten in
// place; elsewhere every task event is its own line.
func TestProgressOutput(t *testing.T) {
	var tty, plain bytes.Buffer
	for _, p := range []*progress{stillProgress(&tty, wide, progressJob()), stillProgress(&plain, nil, progressJob())} {
		p.event(ev(0, "ps", 0, completion.Running, 0))
		_, _ = p.Write([]byte("[ps-0] hello\n"))
		p.event(ev(0, "ps", 0, completion.Stopped, 143))
	}
	if got := plain.String(); got != "jobshift: ps-0 running\n[ps-0] hello\njobshift: ps-0 stopped (exit code 143)\n" {
		t.Errorf("plain output = %q", got)
	}
	lines := strings.Split(tty.String(), "\r\x1b[K")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ps: 1 pending, 1 running |") ||
		!strings.HasPrefix(lines[1], "[ps-0] hello\nps: 1 pending, 1 running |") ||
		!strings.HasPrefix(lines[2], "ps: 1 pending, 1 stopped |") || strings.Contains(tty.String(), "jobshift: ps-0") {
		t.Errorf("terminal output = %q", tty.String())
	}
}

// wide is a terminal wide enough for any status line of the tests.
func wide() int { return 400 }

// The status line never takes a terminal's last column, however narrow
// the terminal: a line that wraps leaves a stale copy on every redraw.
func TestFitWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cols int
		want string
	}{
		{"ps: 1 running | 3s", 80, "ps: 1 running | 3s"},
		{"ps: 1 running | 3s", 19, "ps: 1 running | 3s"},
		{"ps: 1 running | 3s", 18, "ps: 1 running | …"},
		{"ps: 1 running | 3s", 5, "ps:…"},
		{"ps: 1 running | 3s", 1, ""},
		{"角色: 1 running", 8, "角色: …"}, // wide characters count two columns
	} {
		if got := fitWidth(tc.in, tc.cols); got != tc.want {
			t.Errorf("fitWidth(%q, %d) = %q, want %q", tc.in, tc.cols, got, tc.want)
		}
	}
}

// writes records each Write call on its own.
type writes struct{ calls []string }

func (w *writes) Write(b []byte) (int, error) {
	w.calls = append(w.calls, string(b))
	return len(b), nil
}

// On a terminal every update reaches it in one write: erase, output and
// redraw written apart let a terminal under load show the screen without
// its status line (TestLiveLineTmux, seen in a CI dry run).
func TestProgressOneWritePerUpdate(t *testing.T) {
	w := &writes{}
	p := stillProgress(w, wide, progressJob())
	p.event(ev(0, "ps", 0, completion.Running, 0))
	_, _ = p.Write([]byte("[ps-0] hello\n"))
	p.note("interrupted")
	if len(w.calls) != 3 {
		t.Fatalf("%d writes for 3 updates: %q", len(w.calls), w.calls)
	}
	for i, want := range []string{"", "[ps-0] hello\n", "jobshift: interrupted\n"} {
		c := w.calls[i]
		if i > 0 && !strings.HasPrefix(c, "\r\x1b[K"+want) {
			t.Errorf("write %d = %q, want the erase, %q and the status line", i, c, want)
		}
		if !strings.Contains(c, "ps: 1 pending, 1 running |") {
			t.Errorf("write %d = %q has no status line", i, c)
		}
	}
}

// lockedBuffer is written by the progress clock's goroutine and read by
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On a terminal the status line's clock runs while the tasks print
// nothing (it stayed at "0s" until the next event), and stops with done.
func TestProgressClockTicks(t *testing.T) {
	defer func(d time.Duration) { clockTick = d }(clockTick)
	clockTick = 10 * time.Millisecond
	var out lockedBuffer
	p := newProgress(&out, func() int { return 200 }, progressJob())
	p.mu.Lock()
	p.start = time.Now().Add(-3 * time.Second)
	p.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "ps: 2 pending | worker: 2 pending 3s") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "3s") {
		t.Fatalf("no redraw with the clock while nothing happened: %q", out.String())
	}
	p.done(io.Discard)
	n := len(out.String())
	time.Sleep(50 * time.Millisecond)
	if len(out.String()) != n {
		t.Errorf("the clock ticked after done")
	}
}

// stillProgress is a progress whose clock does not tick: the tests count
// its writes.
func stillProgress(w io.Writer, width func() int, job *jobs.Job) *progress {
	p := newProgress(w, width, job)
	p.mu.Lock()
	p.stopClock()
	p.mu.Unlock()
	return p
}
