package main

import (
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// gate is a writer that blocks until opened (a stalled pipe), then records.
type gate struct {
	open    chan struct{}
	entered chan struct{} // gets one value per Write call
	mu      sync.Mutex
	b       bytes.Buffer
}

func (g *gate) Write(b []byte) (int, error) {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.b.Write(b)
}

type brokenPipe struct{ n int }

func (w *brokenPipe) Write(b []byte) (int, error) { w.n++; return 0, syscall.EPIPE }

func TestOutSink(t *testing.T) {
	line := []byte(strings.Repeat("x", 1023) + "\n")
	t.Run("stalled: writes return at once, the excess is dropped and counted", func(t *testing.T) {
		g := &gate{open: make(chan struct{}), entered: make(chan struct{}, 1)}
		s := newOutSink(g)
		s.Write(line)
		<-g.entered // the first write is stuck in the stalled writer
		for range 2 * sinkLimit / len(line) {
			if n, err := s.Write(line); n != len(line) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		s.final().Write([]byte("verdict\n"))
		close(g.open)
		s.close(nil)
		out := g.b.String()
		// The first write is held by the stalled writer, 8192 more fill
		// the queue, the other 8192 are dropped; the verdict still shows.
		want := string(line) + "jobshift: 8192 writes of output were not shown here (this output did not keep up); " +
			"the run directory keeps every line\nverdict\n"
		if !strings.HasSuffix(out, want) {
			t.Errorf("end of output = %q, want %q", out[len(out)-200:], want[len(want)-200:])
		}
		if got, wantLen := len(out), (1+8192)*len(line)+len(want)-len(line); got != wantLen {
			t.Errorf("%d bytes written, want %d", got, wantLen)
		}
	})
	t.Run("closed: nothing fails, nothing more is tried", func(t *testing.T) {
		w := &brokenPipe{}
		s := newOutSink(w)
		for range 100 {
			if _, err := s.Write(line); err != nil {
				t.Fatal(err)
			}
		}
		s.close(nil)
		if w.n == 0 || w.n > 100 {
			t.Errorf("%d writes reached the broken writer", w.n)
		}
	})
}
