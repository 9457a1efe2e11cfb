package multihost_test

import (
	"fmt"
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

// TestLeinaoSeedStorageSlurm: the LeinaoPAI seed (ps x2, worker x2, one
// task per node on the 4 hosts; its command as written, python3 for
// python and no GPUs) reads its code and data from /gdata and writes its
// output under /userhome, mapped by site rules to a tree every host sees
// (/userhome per user): every task's output, written on its own host,
// lands in the user's directory.
func TestLeinaoSeedStorageSlurm(t *testing.T) {
	c := need(t, "slurm")
	if len(c.Hosts) < 4 {
		t.Skipf("the LeinaoPAI seed runs one task per node: 4 nodes needed, the cluster has %d", len(c.Hosts))
	}
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
	rules, d := siteconfig.ParseConfig([]byte(`volume "gdata" {
  path      = "`+shared+`/gdata"
  read_only = true
}
volume "userhome" { path = "`+shared+`/userhome/${user}" }
`), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	site := *c.Site
	site.Volumes = rules.Volumes
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "leinao-storage.json")
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, &site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{}
	r := runSlurm(t, plan, 4*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v", r.final)
	}
	addrs := taskAddrs(plan.Job, r.topology(t))
	checkSpread(t, c, addrs)
	for _, role := range []string{"ps", "worker"} {
		for i := range 2 {
			task := fmt.Sprintf("%s-%d", role, i)
			b, err := os.ReadFile(filepath.Join(shared, "userhome/ci/tensorflow-distributed/output", task+".txt"))
			if want := task + " read 60 lines; ps 2, workers 2\n"; err != nil || string(b) != want {
				t.Errorf("%s's output in the user's /userhome: %q, %v; want %q", task, b, err, want)
			}
		}
	}
}
