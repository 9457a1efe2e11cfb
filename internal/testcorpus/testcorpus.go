// Package testcorpus locates the shared corpus of real job files
// (<repo root>/../shared/corpus) for tests, which must skip cleanly when it
// is absent.
package testcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Path is the corpus directory, or "" when it is absent.
// $JOBSHIFT_CORPUS names it for a checkout elsewhere (a git worktree).
func Path() string {
	if dir := os.Getenv("JOBSHIFT_CORPUS"); dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "corpus")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// Dir is the corpus directory; it skips the test when there is none.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := Path()
	if dir == "" {
		tb.Skip("corpus not found at <repo root>/../shared/corpus")
	}
	return dir
}
