package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// progress shows a running job. On a terminal it keeps one status line at
// the bottom (per role: pending/running/succeeded/failed/stopped, the
// attempt and restarts), rewritten in place, with task output and job
// messages scrolling above it. Elsewhere it prints one plain line per event.
// It is also the io.Writer task output goes through, so the two never
// tear each other's lines. Each update reaches the terminal in one write
// (flush): written as three (erase, output, redraw), a terminal under load
// showed the screen between them, with no status line (TestLiveLineTmux
// in a CI dry run).
type progress struct {
	mu       sync.Mutex
	w        *bufio.Writer // flushed at the end of every update
	tty      bool
	width    func() int // terminal columns; nil when not a terminal
	job      *jobs.Job
	start    time.Time
	attempt  int
	states   map[jobs.TaskRef]completion.State
	seen     map[jobs.TaskRef]bool // started in this attempt
	restarts map[string]int        // per role, all attempts
	drawn    bool
	stopTick chan struct{} // closed by done: the clock stops
}

// newProgress shows job on w; width is the terminal's width (nil: w is
// not a terminal, print plain lines).
func newProgress(w io.Writer, width func() int, job *jobs.Job) *progress {
	p := &progress{w: bufio.NewWriterSize(w, 64<<10), tty: width != nil, width: width, job: job, start: time.Now(), restarts: map[string]int{},
		stopTick: make(chan struct{})}
	p.reset()
	if p.tty {
		go p.tick(clockTick, p.stopTick)
	}
	return p
}

// stopClock stops the status line's clock; caller holds p.mu.
func (p *progress) stopClock() {
	if p.stopTick != nil {
		close(p.stopTick)
		p.stopTick = nil
	}
}

// clockTick is how often the status line is redrawn (tests shorten it).
var clockTick = time.Second

// tick redraws the status line every period, so its clock runs while the
// tasks print nothing (it stayed at 0s before a task's first line).
func (p *progress) tick(period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.stopTick != nil {
				p.clear()
				p.draw()
				p.w.Flush()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progress) reset() {
	p.states = map[jobs.TaskRef]completion.State{}
	p.seen = map[jobs.TaskRef]bool{}
	for _, r := range p.job.Roles {
		for i := range r.Instances {
			p.states[jobs.TaskRef{Role: r.Name, Index: i}] = completion.Pending
		}
	}
}

// Write passes task output through (whole lines: the driver writes one
// line per call), keeping the status line below it.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.w.Write(b) // a bufio error is kept and returned by Flush
	p.draw()
	return len(b), p.w.Flush()
}

// note prints a line from jobshift itself (signals).
func (p *progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, "jobshift: %s\n", msg)
	p.draw()
	p.w.Flush()
}

// println prints a line of jobshift's own (the submitted handle) as is.
func (p *progress) println(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, msg)
	p.draw()
	p.w.Flush()
}

// event records e and shows it.
func (p *progress) event(e drivers.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Attempt > p.attempt {
		p.attempt = e.Attempt
		p.reset()
	}
	if e.Task != nil {
		ref := *e.Task
		if e.State == completion.Running {
			if p.seen[ref] {
				p.restarts[ref.Role]++
			}
			p.seen[ref] = true
		}
		if e.State != "" {
			p.states[ref] = e.State
		}
	}
	p.clear()
	switch {
	case e.Final != nil:
	case e.Task == nil:
		fmt.Fprintf(p.w, "jobshift: %s\n", e.Message)
	case !p.tty:
		fmt.Fprintf(p.w, "jobshift: %s\n", taskLine(e))
	}
	p.draw()
	p.w.Flush()
}

// done removes the status line for the final report, which goes to w from
// now on.
func (p *progress) done(w io.Writer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopClock()
	p.w.Flush()
	p.w = bufio.NewWriterSize(w, 64<<10)
	if p.tty {
		p.clear()
		fmt.Fprintln(p.w, p.status())
	}
	p.w.Flush()
}

func taskLine(e drivers.Event) string {
	s := fmt.Sprintf("%s-%d %s", e.Task.Role, e.Task.Index, e.State)
	if e.State.Terminal() {
		s += fmt.Sprintf(" (exit code %d)", e.ExitCode)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// status is the compact summary, e.g.
// "[attempt 1] ps: 2 running | worker: 1 running, 1 succeeded (1 restart) | 4s".
func (p *progress) status() string {
	var parts []string
	if p.attempt > 0 {
		parts = append(parts, fmt.Sprintf("[attempt %d]", p.attempt+1))
	}
	order := []completion.State{completion.Pending, completion.Running, completion.Succeeded, completion.Failed, completion.Stopped}
	var roles []string
	for _, r := range p.job.Roles {
		n := map[completion.State]int{}
		for i := range r.Instances {
			n[p.states[jobs.TaskRef{Role: r.Name, Index: i}]]++
		}
		var cs []string
		for _, s := range order {
			if n[s] > 0 {
				cs = append(cs, fmt.Sprintf("%d %s", n[s], s))
			}
		}
		role := r.Name + ": " + strings.Join(cs, ", ")
		if k := p.restarts[r.Name]; k > 0 {
			role += fmt.Sprintf(" (%d restart%s)", k, plural(k))
		}
		roles = append(roles, role)
	}
	parts = append(parts, strings.Join(roles, " | "))
	parts = append(parts, time.Since(p.start).Round(time.Second).String())
	return strings.Join(parts, " ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// clear erases the status line (terminal only); caller holds p.mu.
func (p *progress) clear() {
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// draw writes the status line without a newline (terminal only), cut to
// the terminal's width: a line that wraps cannot be erased by "\r\033[K"
// and would leave a stale copy per redraw.
func (p *progress) draw() {
	if p.tty {
		fmt.Fprint(p.w, fitWidth(p.status(), p.width()))
		p.drawn = true
	}
}

// fitWidth cuts s to fit in cols columns, leaving the last column free (a
// terminal may wrap when it is written) and ending a cut line in "…".
// The status line is plain text of role names and counts: one rune is one
// column except for wide characters, which count two.
func fitWidth(s string, cols int) string {
	max := cols - 1
	if max < 1 {
		return ""
	}
	if displayWidth(s) <= max {
		return s
	}
	w, cut := 0, 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > max-1 {
			cut = i
			break
		}
		w += rw
	}
	return s[:cut] + "…"
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth: 2 for East Asian wide and fullwidth characters (the common
// ranges), 0 for control characters, 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}
