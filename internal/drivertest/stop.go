// Package drivertest holds what tests of several targets do alike against
// a real engine, through the drivers.Driver interface alone.
package drivertest

import (
	"context"
	"fmt"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

// StopOnceRunning watches h, calls d.Stop as soon as n tasks have reported
// running (the user's `jobshift stop`), and returns the job's final result;
// it fails the test when no stop happened or no result came.
func StopOnceRunning(ctx context.Context, t *testing.T, d drivers.Driver, h drivers.Handle, n int) drivers.Result {
	t.Helper()
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	running, stopped := map[string]bool{}, false
	var final *drivers.Result
	for e := range events {
		if e.Task != nil && e.State == completion.Running {
			running[fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)] = true
		}
		if len(running) == n && !stopped {
			stopped = true
			if err := d.Stop(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if !stopped || final == nil {
		t.Fatalf("stopped %v, final %+v", stopped, final)
	}
	return *final
}
