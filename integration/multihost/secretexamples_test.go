package multihost_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// What the examples' masters print once their Secret values reached them
// (the ConfigMap-entry example's STORE_KEY equals its Secret volume's
// file; the init-secret example's credential has the SHA-256 it checks).
const (
	entryLine = "rank 0 of 2, epochs 3: entrypoint from the ConfigMap, key from the Secret"
	initLine  = "dataset: 1000 lines; credential: present (sha256 matches)"
)

// secretValues are the examples' Secret values as written and in the
// base64 form of a Secret's data: none may appear in a job version, a
// task's log or a file of the job's state.
var secretValues = []string{"dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ==", "hub-0f8e7d6c5b4a", "aHViLTBmOGU3ZDZjNWI0YQ=="}

// holdsSecret is the first of secretValues s holds, or "".
func holdsSecret(s string) string {
	for _, v := range secretValues {
		if strings.Contains(s, v) {
			return v
		}
	}
	return ""
}

// examplePlan is examples/NAME planned on c's site.
func examplePlan(t *testing.T, c *cluster, name string) *translate.Plan {
	t.Helper()
	path := filepath.Join(repoRoot(), "examples", name)
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, c.Site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{}
	return plan
}

// masterLogNomad runs examples/name on the Nomad cluster to success and
// returns its master's stdout; no job version holds the Secret's value.
func masterLogNomad(t *testing.T, name string) string {
	c := need(t, "nomad")
	return masterLogOn(t, c, examplePlan(t, c, name))
}

// onDocker is c with the docker driver and rules put before its site's
// image rules.
func onDocker(c *cluster, rules ...siteconfig.ImageRule) *cluster {
	site := *c.Site
	ns := *site.Nomad
	ns.Driver = "docker"
	site.Nomad = &ns
	site.Images = append(append([]siteconfig.ImageRule(nil), rules...), site.Images...)
	return &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
}

// dockerCluster is c with the docker driver, the jobs' images replaced by
// the locally built one.
func dockerCluster(t *testing.T, c *cluster) *cluster {
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	return onDocker(c, siteconfig.ImageRule{Pattern: "python:*", Replace: torchImage}, siteconfig.ImageRule{Pattern: "busybox*", Replace: torchImage})
}

// masterLogOn runs plan on c to success and returns its master's stdout;
// no job version and no task's log holds a Secret value.
func masterLogOn(t *testing.T, c *cluster, plan *translate.Plan) string {
	cl := nomadClient(t, c)
	tasks, _ := runNomadPlaced(t, c, cl, plan)
	var out string
	for _, nt := range tasks {
		if nt.role == "master" {
			// A Docker task's output reaches its log file through Nomad's
			// docker logger, which may still be writing it when the job
			// has ended (CI: a 5 ms container, an empty log read at once).
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
				out = catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
				if out != "" || time.Now().After(deadline) {
					break
				}
			}
		}
		versions, _, _, err := cl.Jobs().Versions(*nt.alloc.Job.ID, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range versions {
			if b, _ := json.Marshal(v); holdsSecret(string(b)) != "" {
				t.Errorf("job version %d holds the Secret value %q", *v.Version, holdsSecret(string(b)))
			}
		}
		for task := range nt.alloc.TaskStates {
			for _, stream := range []string{"stdout", "stderr"} {
				log := "alloc/logs/" + task + "." + stream + ".0"
				if rc, err := cl.AllocFS().Cat(nt.alloc, log, nil); err == nil {
					b, _ := io.ReadAll(rc)
					rc.Close()
					if v := holdsSecret(string(b)); v != "" {
						t.Errorf("%s: %s holds the Secret value %q", nt.alloc.Name, log, v)
					}
				}
			}
		}
	}
	return out
}

// TestConfigMapSecretNomad: the ConfigMap-entry example on the Nomad
// cluster (its master and worker on clients of their own): the entrypoint
// from the ConfigMap, the key from the Secret, in no job version.
func TestConfigMapSecretNomad(t *testing.T) {
	if out := masterLogNomad(t, "pytorchjob-configmap-entry.yaml"); !strings.Contains(out, entryLine) {
		t.Errorf("master printed %q, want %q", out, entryLine)
	}
}

// TestInitSecretNomad: the init-secret example on the Nomad cluster: each
// task's init container prepares the dataset its main container reads.
func TestInitSecretNomad(t *testing.T) {
	if out := masterLogNomad(t, "pytorchjob-init-secret.yaml"); !strings.Contains(out, initLine) {
		t.Errorf("master printed %q, want %q", out, initLine)
	}
}

// TestConfigMapSecretNomadDocker: the ConfigMap-entry example on the
// clients' Docker daemons: the ConfigMap's script and the Secret's file
// mounted from the task directory, the key from the job's Variable.
func TestConfigMapSecretNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	dc := dockerCluster(t, c)
	if out := masterLogOn(t, c, examplePlan(t, dc, "pytorchjob-configmap-entry.yaml")); !strings.Contains(out, entryLine) {
		t.Errorf("master printed %q, want %q", out, entryLine)
	}
}

// TestInitEmptyDirNomadDocker: an init container filling the pod's
// emptyDir, then the main container reading it, on a client's Docker
// (the allocation's directory, a driver volume of both tasks); the memory
// emptyDir is Docker's tmpfs mount of its sizeLimit.
func TestInitEmptyDirNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	dc := dockerCluster(t, c)
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "init-emptydir.yaml")
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, dc.Site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{}
	if out := masterLogOn(t, c, plan); out != "cache: 500 lines\nfast: 32768k\n" {
		t.Errorf("master printed %q", out)
	}
}

// TestConfigMapSecretSlurm and TestInitSecretSlurm: the same on the Slurm
// cluster (three hosts).
func TestConfigMapSecretSlurm(t *testing.T) {
	slurmExample(t, "pytorchjob-configmap-entry.yaml", entryLine)
}

func TestInitSecretSlurm(t *testing.T) {
	slurmExample(t, "pytorchjob-init-secret.yaml", initLine)
}

func slurmExample(t *testing.T, name, want string) {
	c := need(t, "slurm")
	plan := examplePlan(t, c, name)
	r := runSlurm(t, plan, 3*time.Minute)
	if out := r.taskLog(t, "master", 0); r.final.Phase != completion.PhaseSucceeded || !strings.Contains(out, want) {
		t.Fatalf("final %+v, master printed %q, want %q", r.final, out, want)
	}
	checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	noSecretLeft(t, r)
}

// noSecretLeft: no Secret value is in a file left of the job: its batch
// script, its state directory (the tasks' logs among them).
func noSecretLeft(t *testing.T, r *slurmRun) {
	t.Helper()
	files := []string{r.meta["script"]}
	_ = filepath.Walk(filepath.Dir(r.adir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("the scan found %d files of the job: it would prove nothing", len(files))
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); holdsSecret(string(b)) != "" {
			t.Errorf("%s holds the Secret value %q", f, holdsSecret(string(b)))
		}
	}
}
