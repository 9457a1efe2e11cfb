package main

import (
	"fmt"
	"io"
	"sync"
)

// sinkLimit bounds the output waiting for a slow stdout. Past it, writes are
// dropped (and counted) rather than held: a paused terminal or a stalled
// pipe must never stall the tasks or jobshift's reaction to signals. Every
// line is kept in the run directory anyway.
const sinkLimit = 8 << 20

// outSink makes one of jobshift's output streams best-effort: Write never
// blocks and never fails. A goroutine copies to the real writer; once that
// fails (stdout closed: EPIPE; terminal gone: EIO) everything later is
// discarded, so `jobshift run job | head -1` keeps following its job.
type outSink struct {
	w    io.Writer
	done chan struct{}

	mu     sync.Mutex
	wake   chan struct{} // closed when queue gains an entry or closed is set
	queue  []chunk
	queued int // bytes in queue
	closed bool
}

func newOutSink(w io.Writer) *outSink {
	s := &outSink{w: w, done: make(chan struct{}), wake: make(chan struct{})}
	go s.drain()
	return s
}

// Write queues a copy of b; when sinkLimit bytes wait already, b is dropped.
func (s *outSink) Write(b []byte) (int, error) { return s.put(b, false) }

// final is a writer for the last lines (the verdict): they are queued even
// past the limit, since they say how the job ended.
func (s *outSink) final() io.Writer { return finalWriter{s} }

type finalWriter struct{ s *outSink }

func (f finalWriter) Write(b []byte) (int, error) { return f.s.put(b, true) }

func (s *outSink) put(b []byte, always bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(b), nil
	}
	if !always && s.queued+len(b) > sinkLimit {
		// The note goes where the lost writes were.
		if n := len(s.queue); n > 0 && s.queue[n-1].dropped > 0 {
			s.queue[n-1].dropped++
		} else {
			s.queue = append(s.queue, chunk{dropped: 1})
		}
		return len(b), nil
	}
	s.queue = append(s.queue, chunk{b: append([]byte(nil), b...)})
	s.queued += len(b)
	s.signal()
	return len(b), nil
}

// signal wakes drain; caller holds s.mu.
func (s *outSink) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// chunk is one queued write, or a run of dropped ones.
type chunk struct {
	b       []byte
	dropped int
}

// next waits for queued output; end reports the sink closed and empty.
func (s *outSink) next() (batch []chunk, end bool) {
	for {
		s.mu.Lock()
		batch = s.queue
		s.queue, s.queued = nil, 0
		closed, wake := s.closed, s.wake
		s.mu.Unlock()
		if len(batch) > 0 || closed {
			return batch, len(batch) == 0
		}
		<-wake
	}
}

func (s *outSink) drain() {
	defer close(s.done)
	broken := false
	for {
		batch, end := s.next()
		if end {
			return
		}
		for _, c := range batch {
			switch {
			case broken:
			case c.dropped > 0:
				broken = s.write([]byte(dropNote(c.dropped)))
			default:
				broken = s.write(c.b)
			}
		}
	}
}

// write writes b and reports whether the writer is broken.
func (s *outSink) write(b []byte) bool {
	_, err := s.w.Write(b)
	return err != nil
}

func dropNote(n int) string {
	return fmt.Sprintf("jobshift: %d writes of output were not shown here (this output did not keep up); "+
		"the run directory keeps every line\n", n)
}

// close writes out what is queued and returns once it is written, or when
// quit is closed.
func (s *outSink) close(quit <-chan struct{}) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.signal()
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-quit:
	}
}
