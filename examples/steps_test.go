package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/translate/completion"
)

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
	if b, err := os.ReadFile(filepath.Join(o.dir, "master-0", "attempt-0", "stdout")); err != nil || !strings.Contains(string(b), "dataset:") {
		t.Fatalf("the run directory %s does not hold the task's output (%v): the scan below would prove nothing", o.dir, err)
	}
	for _, s := range []string{"hub-0f8e7d6c5b4a", "aHViLTBmOGU3ZDZjNWI0YQ=="} {
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
