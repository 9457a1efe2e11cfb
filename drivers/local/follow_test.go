package local

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
)

// logs -f of a local run follows the task's output while the job runs,
// through an in-place restart (the next start's file), and ends with the
// run: what `jobshift logs -f local:DIR worker-0` prints.
func TestLogsFollow(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran-once")
	job := onceJob(t, dir, "follow", "if [ -e "+mark+" ]; then echo second; sleep 0.3; echo done; else touch "+mark+"; echo first; sleep 0.5; exit 1; fi")
	d, err := New(Options{Dir: dir, RunDir: filepath.Join(dir, "run"), Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	h, err := d.Submit(ctx, loadPlan(t, job))
	if err != nil {
		t.Fatal(err)
	}
	evc, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range evc {
		}
	}()
	var rc io.ReadCloser
	for deadline := time.Now().Add(10 * time.Second); ; {
		rc, err = d.Logs(ctx, h, drivers.LogOptions{Task: &jobs.TaskRef{Role: "worker", Index: 0}, Follow: true})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the task's first start not there yet
	}
	if err != nil {
		t.Fatalf("Logs -f: %v", err)
	}
	defer rc.Close()
	out, err := io.ReadAll(rc)
	if err != nil || string(out) != "first\nsecond\ndone\n" {
		t.Errorf("followed %q (%v), want both starts' output to the end", out, err)
	}
}
