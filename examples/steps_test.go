package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/translate/completion"
)

// noSecret fails t if the output or any file of the run directory holds
// one of secrets; it first makes sure the scan sees the task's output.
func noSecret(t *testing.T, o outcome, stdout, seen string, secrets ...string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(o.dir, stdout)); err != nil || !strings.Contains(string(b), seen) {
		t.Fatalf("the run directory %s does not hold the task's output (%v): the scan below would prove nothing", o.dir, err)
	}
	for _, s := range secrets {
		if strings.Contains(o.out, s) {
			t.Errorf("the output holds the secret %q", s)
		}
		_ = filepath.WalkDir(o.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
				t.Errorf("%s holds the secret %q", p, s)
			}
			return nil
		})
	}
}

// The init container prepares the dataset the training container reads;
// the Secret's value reaches the task (it checks the SHA-256) and is
// written nowhere: not in the output, not in any file of the run directory.
func TestInitSecretExample(t *testing.T) {
	_ = os.RemoveAll("/tmp/jobshift-example-init/train.txt")
	o := run(t, "pytorchjob-init-secret.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded || o.res.ExitCode != 0 {
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	if !strings.Contains(o.out, "dataset: 1000 lines; credential: present (sha256 matches)") {
		t.Errorf("the training container did not confirm its data and credential:\n%s", o.out)
	}
	noSecret(t, o, "master-0/attempt-1/stdout", "dataset:", "hub-0f8e7d6c5b4a", "aHViLTBmOGU3ZDZjNWI0YQ==")
}

// The entrypoint is the ConfigMap's script at its mount path (mode 0755),
// the key reaches the task as a variable and as the Secret volume's file,
// and neither the key nor its base64 form is written anywhere else.
func TestConfigMapEntryExample(t *testing.T) {
	o := run(t, "pytorchjob-configmap-entry.yaml", taskEnv())
	if o.res.Phase != completion.PhaseSucceeded || o.res.ExitCode != 0 {
		t.Fatalf("result = %+v, want succeeded", o.res)
	}
	if !strings.Contains(o.out, "rank 0 of 2, epochs 3: entrypoint from the ConfigMap, key from the Secret") {
		t.Errorf("the master did not run the ConfigMap's entrypoint with its key:\n%s", o.out)
	}
	noSecret(t, o, "master-0/attempt-1/stdout", "entrypoint from the ConfigMap", "dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ==")
}
