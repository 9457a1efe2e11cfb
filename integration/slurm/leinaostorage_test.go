package slurm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestLeinaoSeedStorage: the LeinaoPAI seed (ps x2, worker x2; its
// command as written, python3 for python and no GPUs) reads its code and
// data from /gdata and writes its output under /userhome, both mapped by
// site rules to a shared tree (/userhome per user); every task's output
// lands in the user's directory.
func TestLeinaoSeedStorage(t *testing.T) {
	needCluster(t)
	shared := t.TempDir()
	for _, d := range []string{"gdata/tensorflow-distributed/code", "gdata/tensorflow-distributed/data", "userhome/ci/tensorflow-distributed/output"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(shared, "userhome/ci/tensorflow-distributed/output"), 0o777)
	code, err := os.ReadFile(filepath.Join(repoRoot(), "integration", "testdata", "view", "mnist_replica.py"))
	if err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{"code/mnist_replica.py": string(code), "data/train.txt": strings.Repeat("x\n", 60)} {
		if err := os.WriteFile(filepath.Join(shared, "gdata/tensorflow-distributed", f), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	site, d := siteconfig.ParseConfig([]byte(`volume "gdata" {
  path      = "`+shared+`/gdata"
  read_only = true
}
volume "userhome" { path = "`+shared+`/userhome/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "leinao-storage.json")
	plan := loadSitePlan(t, path, site)
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "ps-0.err"))
		t.Fatalf("final %+v; ps-0 stderr %q", r.final, errOut)
	}
	for _, task := range []string{"ps-0", "ps-1", "worker-0", "worker-1"} {
		b, err := os.ReadFile(filepath.Join(shared, "userhome/ci/tensorflow-distributed/output", task+".txt"))
		if want := task + " read 60 lines; ps 2, workers 2\n"; err != nil || string(b) != want {
			t.Errorf("%s's output in the user's /userhome: %q, %v; want %q", task, b, err, want)
		}
	}
}
