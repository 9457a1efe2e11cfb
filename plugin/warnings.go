package plugin

import (
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Warnings carries a served driver's warnings to the host, which counts
// and prints them with the job's own (validate -to, convert, run): a
// plugin's stderr only reaches the host's log. Give its Report to the
// driver as drivers.Config.Warn and the Warnings to ServeWith; the
// server then returns what each Render or Submit reported with its
// result. Those calls run one at a time, so every warning goes back with
// the call that made it.
type Warnings struct {
	// Outside receives what is reported outside a Render or Submit (a
	// Watch, a constructor), which has no reply to go back with; nil
	// drops it.
	Outside func(hcl.Diagnostics)

	mu     sync.Mutex
	call   sync.Mutex // held for one Render or Submit
	active bool
	ds     hcl.Diagnostics
}

// Report records ws (drivers.Config.Warn).
func (w *Warnings) Report(ws hcl.Diagnostics) {
	w.mu.Lock()
	if w.active {
		w.ds = append(w.ds, ws...)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	if w.Outside != nil {
		w.Outside(ws)
	}
}

// during runs f as one call and returns what it reported; a nil w only
// runs f.
func (w *Warnings) during(f func() error) (hcl.Diagnostics, error) {
	if w == nil {
		return nil, f()
	}
	w.call.Lock()
	defer w.call.Unlock()
	w.mu.Lock()
	w.active = true
	w.mu.Unlock()
	err := f()
	w.mu.Lock()
	defer w.mu.Unlock()
	ds := w.ds
	w.ds, w.active = nil, false
	return ds, err
}
