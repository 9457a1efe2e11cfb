package slurm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// TestConfigMapSecretExample: the ConfigMap-entry example on Slurm: its
// entrypoint is the ConfigMap's script at its path, its STORE_KEY comes
// from the Secret (by number from the 0600 secrets file: js_env) and
// equals the Secret volume's file; the key is in no file of the job's
// state and not in the batch script.
func TestConfigMapSecretExample(t *testing.T) {
	needCluster(t)
	r := submit(t, loadSitePlan(t, "examples/pytorchjob-configmap-entry.yaml", nil), 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if strings.Contains(string(errOut), "needs platform files at fixed paths") {
		t.Skipf("the nodes allow no namespace: %s", errOut)
	}
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if want := "rank 0 of 2, epochs 3: entrypoint from the ConfigMap, key from the Secret"; !strings.Contains(string(out), want) {
		t.Errorf("master printed %q, want %q (stderr %q)", out, want, errOut)
	}
	noSecretLeft(t, r, "dataset-key-7c1e")
}

// TestInitSecretExample: the init-secret example on Slurm: its init
// container prepares the dataset the main container reads, and the
// Secret's value reaches the task.
func TestInitSecretExample(t *testing.T) {
	needCluster(t)
	r := submit(t, loadSitePlan(t, "examples/pytorchjob-init-secret.yaml", nil), 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if want := "dataset: 1000 lines; credential: present (sha256 matches)"; !strings.Contains(string(out), want) {
		t.Errorf("master printed %q, want %q (stderr %q)", out, want, errOut)
	}
}

// noSecretLeft: value is in no file left of the job (its state directory,
// the batch script).
func noSecretLeft(t *testing.T, r *run, value string) {
	t.Helper()
	files := []string{r.h.Meta["script"]}
	_ = filepath.Walk(r.state, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), value) {
			t.Errorf("%s holds the Secret's value", f)
		}
	}
}

// TestInitSecretEnv: an init container's variable from a Secret reaches
// it (js_run_init reads it from the secrets file), and the value is in no
// file of the job's state.
func TestInitSecretEnv(t *testing.T) {
	needCluster(t)
	r := submit(t, loadSitePlan(t, "integration/testdata/view/init-secret-env.yaml", nil), 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if r.final.Phase != completion.PhaseSucceeded || string(out) != "init saw the token: 14 bytes\n" {
		t.Fatalf("final %+v, master printed %q (stderr %q)", r.final, out, errOut)
	}
	noSecretLeft(t, r, "tok-5e3c9a1b77")
}
