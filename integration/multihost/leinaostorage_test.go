package multihost_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// leinaoStorage lays out the LeinaoPAI seed's cluster mounts in a
// temporary directory every host sees (the clusters' hosts share the
// machine's file system, as a LeinaoPAI cluster's /gdata and /userhome
// were shared): the stand-in mnist_replica.py and 60 lines of data under
// gdata, user ci's output directory under userhome. It returns the
// directory and c's site config with /gdata mapped read-only and
// /userhome per user.
func leinaoStorage(t *testing.T, c *cluster) (string, *siteconfig.Config) {
	t.Helper()
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
	return shared, &site
}

// leinaoStoragePlan is the seed file at path planned for user ci on site.
func leinaoStoragePlan(t *testing.T, site *siteconfig.Config, path string) *translate.Plan {
	t.Helper()
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if plan.Job.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", plan.Job.Source.Dialect)
	}
	plan.Options = map[string]string{}
	return plan
}

// leinaoSeedFile is integration/testdata/view/leinao-storage.json, the
// seed's job as written.
func leinaoSeedFile() string {
	return filepath.Join(repoRoot(), "integration", "testdata", "view", "leinao-storage.json")
}

// checkLeinaoOutputs: every task's output, written on its own host, is in
// user ci's /userhome, naming the cluster it was given.
func checkLeinaoOutputs(t *testing.T, shared string, ps, workers int) {
	t.Helper()
	for role, n := range map[string]int{"ps": ps, "worker": workers} {
		for i := range n {
			task := fmt.Sprintf("%s-%d", role, i)
			b, err := os.ReadFile(filepath.Join(shared, "userhome/ci/tensorflow-distributed/output", task+".txt"))
			if want := fmt.Sprintf("%s read 60 lines; ps %d, workers %d\n", task, ps, workers); err != nil || string(b) != want {
				t.Errorf("%s's output in the user's /userhome: %q, %v; want %q", task, b, err, want)
			}
		}
	}
}

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
	shared, site := leinaoStorage(t, c)
	plan := leinaoStoragePlan(t, site, leinaoSeedFile())
	r := runSlurm(t, plan, 4*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v", r.final)
	}
	checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	checkLeinaoOutputs(t, shared, 2, 2)
}

// TestLeinaoSeedStorageNomadDocker: the same seed on the Nomad clients'
// own Docker daemons (bridge networking, each container binding
// 10001-10003 as on LeinaoPAI, so the four tasks fit the three clients):
// /gdata and /userhome are driver volumes of the mapped paths (the
// clients allow host paths: cluster.sh's plugin "docker" volumes), and
// every task's output lands in the user's directory.
func TestLeinaoSeedStorageNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	shared, site := leinaoStorage(t, onDocker(c, siteconfig.ImageRule{Pattern: "10.11.3.8:5000/*", Replace: torchImage}))
	plan := leinaoStoragePlan(t, site, leinaoSeedFile())
	cl := nomadClient(t, c)
	tasks, _ := runNomadPlaced(t, c, cl, plan)
	for _, nt := range tasks {
		if d := nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks[0].Driver; d != "docker" {
			t.Errorf("%s: driver %s, want docker", nt.alloc.Name, d)
		}
	}
	checkLeinaoOutputs(t, shared, 2, 2)
}

// TestLeinaoSeedStorageNomad: the seed on raw_exec across the Nomad
// clients, /gdata and /userhome bound at the job's paths by each task's
// view on its own client. In the host's network every task binds
// 10001-10003, so the job needs a client per task (distinct_hosts): on a
// cluster of fewer clients than the seed's four tasks, the seed as
// written is refused at submission, saying so, and the seed with as many
// ps tasks as leave one client per task runs instead (its command, ports
// and mounts unchanged).
func TestLeinaoSeedStorageNomad(t *testing.T) {
	c := need(t, "nomad")
	shared, site := leinaoStorage(t, c)
	path := leinaoSeedFile()
	ps := 2
	if n := len(c.Hosts); n < 4 {
		plan := leinaoStoragePlan(t, site, path)
		id := fmt.Sprintf("mh-leinao-refused-%d", time.Now().UnixNano()%1e9)
		plan.Options["id"] = id
		t.Cleanup(func() { _, _, _ = nomadClient(t, c).Jobs().Deregister(id, true, nil) })
		d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: plan.Site})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Submit(t.Context(), plan)
		if !errors.Is(err, nomad.ErrPlacement) || !strings.Contains(err.Error(), "needs 4 client nodes") {
			t.Fatalf("the seed as written on %d clients: err = %v, want a placement refusal naming 4 client nodes", n, err)
		}
		ps = n - 2
		path = leinaoSeedWithPS(t, path, ps)
	}
	plan := leinaoStoragePlan(t, site, path)
	tasks, _ := runNomadPlaced(t, c, nomadClient(t, c), plan)
	if len(tasks) != ps+2 {
		t.Errorf("%d allocations, want %d", len(tasks), ps+2)
	}
	checkLeinaoOutputs(t, shared, ps, 2)
}

// leinaoSeedWithPS writes the seed file at path with n ps tasks (and
// minSucceededTaskCount n for the role), all else as written.
func leinaoSeedWithPS(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job map[string]any
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	for _, r := range job["taskRoles"].([]any) {
		if role := r.(map[string]any); role["name"] == "ps" {
			role["taskNumber"], role["minSucceededTaskCount"] = n, n
		}
	}
	b, err = json.MarshalIndent(job, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
