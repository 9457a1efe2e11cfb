package drivertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Jobshift builds the jobshift binary of the code under test once per test
// process and returns its path. Tests run it as the CLI and as the in-job
// helper of Nomad jobs (finisher, judge), so it is static (CGO_ENABLED=0:
// it also runs inside the test images) and lives in the temporary
// directory, which every host of the test clusters sees.
func Jobshift(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jobshift-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "jobshift")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/jobshift")
		cmd.Dir = repoRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building jobshift: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// repoRoot is the module's root: two levels above this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// RemoveJobshift deletes the binary Jobshift built, if any; a TestMain calls
// it after m.Run.
func RemoveJobshift() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}
