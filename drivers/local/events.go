package local

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/jobshift/jobshift/drivers"
)

// broker keeps every event of a run so any number of watchers, started at
// any time, see the whole stream; the supervisor never blocks on a slow one.
// Events also go to <run>/events.jsonl, so a run can be inspected afterwards.
type broker struct {
	mu      sync.Mutex
	evs     []drivers.Event
	closed  bool
	changed chan struct{}
	file    *os.File
}

func newBroker(dir string) *broker {
	b := &broker{changed: make(chan struct{})}
	if f, err := os.OpenFile(filepath.Join(dir, "events.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
		b.file = f
	}
	return b
}

func (b *broker) emit(e drivers.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.evs = append(b.evs, e)
	if b.file != nil {
		if line, err := json.Marshal(e); err == nil {
			_, _ = b.file.Write(append(line, '\n'))
		}
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if b.file != nil {
		b.file.Close()
	}
	close(b.changed)
}

// subscribe streams every event from the first; the channel closes after
// the last one, or when ctx is done.
func (b *broker) subscribe(ctx context.Context) <-chan drivers.Event {
	out := make(chan drivers.Event)
	go func() {
		defer close(out)
		next := 0
		for {
			b.mu.Lock()
			batch := append([]drivers.Event(nil), b.evs[next:]...)
			closed, changed := b.closed, b.changed
			b.mu.Unlock()
			for _, e := range batch {
				select {
				case out <- e:
				case <-ctx.Done():
					return
				}
			}
			next += len(batch)
			if closed {
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
