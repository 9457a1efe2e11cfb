package drivertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	binMu   sync.Mutex
	binDir  string
	binPath = map[string]string{}
)

// Jobshift builds the jobshift binary of the code under test once per test
// process and returns its path. Tests run it as the CLI and as the in-job
// helper of Nomad jobs (finisher, judge), so it is static (CGO_ENABLED=0:
// it also runs inside the test images) and lives in the temporary
// directory, which every host of the test clusters sees.
func Jobshift(t testing.TB) string {
	t.Helper()
	return build(t, "jobshift")
}

// JobshiftEnv builds jobshift-env (cmd/jobshift-env: nomad-env alone, the
// site's nomad { env_helper }) as Jobshift builds jobshift.
func JobshiftEnv(t testing.TB) string {
	t.Helper()
	return build(t, "jobshift-env")
}

// build builds ./cmd/<name> once per test process into one temporary
// directory.
func build(t testing.TB, name string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if p, ok := binPath[name]; ok {
		return p
	}
	if binDir == "" {
		dir, err := os.MkdirTemp("", "jobshift-bin-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
	}
	p := filepath.Join(binDir, name)
	cmd := exec.Command("go", "build", "-o", p, "./cmd/"+name)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, out)
	}
	binPath[name] = p
	return p
}

// repoRoot is the module's root: two levels above this file.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// RemoveJobshift deletes the binaries Jobshift and JobshiftEnv built, if
// any; a TestMain calls it after m.Run.
func RemoveJobshift() {
	binMu.Lock()
	defer binMu.Unlock()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// UnderUsr copies the program at path into a new directory under
// /usr/local/lib, readable by every user, removed when t ends: where
// Nomad's default chroot_env puts it in every exec task's root. It skips
// t (fails it under CI=true) where it cannot write there.
func UnderUsr(t testing.TB, path string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/usr/local/lib", "jobshift-test-")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot install under /usr (CI=true): %v", err)
		}
		t.Skipf("cannot install under /usr: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}
