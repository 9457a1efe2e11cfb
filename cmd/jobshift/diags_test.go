package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Diagnostics quote regular files only: opening a FIFO already read would
// wait for a writer forever (validate <(...) with a named pipe).
func TestSourceOfSkipsFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "job.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if src := sourceOf(fifo); src != nil {
		t.Errorf("sourceOf(FIFO) = %q, want nil", src)
	}
	file := filepath.Join(dir, "job2.yaml")
	mustOK(t, os.WriteFile(file, []byte("kind: TFJob\n"), 0o644))
	if src := sourceOf(file); string(src) != "kind: TFJob\n" {
		t.Errorf("sourceOf(file) = %q", src)
	}
	if src := sourceOf(filepath.Join(dir, "missing")); src != nil {
		t.Errorf("sourceOf(missing) = %q, want nil", src)
	}
}
