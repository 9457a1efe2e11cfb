package slurm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestMappedVolume: a PyTorchJob reads its dataset claim at /dataset and
// writes its checkpoint claim at /ckpt; the site maps the claims to
// directories of this machine (the test cluster's shared file system),
// the checkpoint one per user, and the task sees them at the job's paths
// (drivers/taskns through js_exec_view, _t_nsbind_R).
func TestMappedVolume(t *testing.T) {
	needCluster(t)
	shared := t.TempDir()
	for _, d := range []string{"data", "home/ci"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(shared, "home", "ci"), 0o777) // the tasks' user writes there
	if err := os.WriteFile(filepath.Join(shared, "data", "hello.txt"), []byte("dataset seen at /dataset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, d := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+`/home/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "claim.yaml")
	job, diags := load.Load(path, jobs.ReadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	plan, diags := translate.Build(job, site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	r := submit(t, plan, 3*time.Minute)
	out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.out"))
	errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "master-0.err"))
	if strings.Contains(string(errOut), "keeps the node's host name") {
		t.Skipf("the nodes allow no namespace: %s", errOut)
	}
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v; stderr %s", r.final, errOut)
	}
	if string(out) != "dataset seen at /dataset\n" {
		t.Errorf("master printed %q, want the dataset file (stderr %q)", out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(shared, "home", "ci", "master.txt")); err != nil || !strings.HasPrefix(string(b), "ckpt from ") {
		t.Errorf("the checkpoint did not land in the user's mapped directory: %q, %v", b, err)
	}
}
