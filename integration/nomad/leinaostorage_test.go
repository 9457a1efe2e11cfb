package nomad_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestLeinaoSeedStorageOnDocker: the LeinaoPAI seed (ps x2, worker x2;
// its command as written, python3 for python and no GPUs) reads its code
// and data from /gdata and writes its output under /userhome, both mapped
// by site rules to a shared tree (/userhome per user), mounted as driver
// volumes: every task's output lands in alice's directory. Docker, as the
// seed's four tasks bind the same three ports (one client here), and
// with the seed's CPU and memory shrunk to fit the one client.
func TestLeinaoSeedStorageOnDocker(t *testing.T) {
	needDocker(t)
	needDockerVolumes(t)
	leinaoSeedOnDocker(t, func(shared string) string {
		return `volume "gdata" {
  path      = "` + shared + `/gdata"
  read_only = true
}
volume "userhome" { path = "` + shared + `/userhome/${user}" }
`
	})
}

// TestLeinaoSeedStorageOnDockerHostVolume: the same with /gdata and
// /userhome mapped to Nomad host volumes (the shared tree's gdata and
// alice's home registered as dynamic host volumes of the client), which
// the docker plugin mounts whatever its volumes setting; /gdata
// read-only by the rule.
func TestLeinaoSeedStorageOnDockerHostVolume(t *testing.T) {
	needDocker(t)
	tag := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	leinaoSeedOnDocker(t, func(shared string) string {
		gdata := registerHostVolume(t, "js-gdata-"+tag, filepath.Join(shared, "gdata"))
		home := registerHostVolume(t, "js-home-"+tag, filepath.Join(shared, "userhome", "alice"))
		return `volume "gdata" {
  nomad_host_volume = "` + gdata + `"
  read_only         = true
}
volume "userhome" { nomad_host_volume = "` + home + `" }
`
	})
}

// leinaoSeedOnDocker lays out the seed's /gdata and alice's /userhome in
// a shared tree, maps them by the rules rules(tree) and runs the seed on
// docker: every task's output lands in alice's directory.
func leinaoSeedOnDocker(t *testing.T, rules func(string) string) {
	t.Helper()
	shared := t.TempDir()
	for _, d := range []string{"gdata/tensorflow-distributed/code", "gdata/tensorflow-distributed/data", "userhome/alice/tensorflow-distributed/output"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, err := os.ReadFile(filepath.Join(agent.Repo(), "integration", "testdata", "view", "mnist_replica.py"))
	if err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{"code/mnist_replica.py": string(code), "data/train.txt": strings.Repeat("x\n", 60)} {
		if err := os.WriteFile(filepath.Join(shared, "gdata/tensorflow-distributed", f), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vols, d := siteconfig.ParseConfig([]byte(rules(shared)), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	cfg := site()
	cfg.Nomad.Driver = "docker"
	cfg.Images = []siteconfig.ImageRule{{Pattern: "10.11.3.8:5000/*", Replace: torchImage}}
	cfg.Volumes = vols.Volumes
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "leinao-storage.json"), cfg)
	for _, r := range p.Job.Roles {
		r.Resources.CPUMilli, r.Resources.MemoryMiB = 500, 256
	}
	res, id := run(t, p)
	if res.Phase != completion.PhaseSucceeded {
		allocs, _, _ := agent.Client(t).Jobs().Allocations(id, true, nil)
		for _, a := range allocs {
			for task, st := range a.TaskStates {
				for _, e := range st.Events {
					t.Logf("%s %s: %s %s", a.Name, task, e.Type, e.DisplayMessage)
				}
			}
			t.Logf("%s stderr:\n%s", a.Name, catStderr(t, a.ID, nomad.MainTask))
		}
		t.Fatalf("result %+v", res)
	}
	for _, task := range []string{"ps-0", "ps-1", "worker-0", "worker-1"} {
		b, err := os.ReadFile(filepath.Join(shared, "userhome/alice/tensorflow-distributed/output", task+".txt"))
		if want := task + " read 60 lines; ps 2, workers 2\n"; err != nil || string(b) != want {
			t.Errorf("%s's output in alice's /userhome: %q, %v; want %q", task, b, err, want)
		}
	}
}

// needDockerVolumes skips when the client's docker plugin does not allow
// host paths (volumes { enabled = true }), which a site volume rule's path
// needs on docker: a site setting, off by Nomad's default (this agent's),
// on in scripts/cluster.sh's clients, where integration/multihost runs
// the same jobs; TestSharedClaimTFJobOnDocker checks the refusal here.
func needDockerVolumes(t *testing.T) {
	t.Helper()
	if !dockerVolumesEnabled(t) {
		t.Skip("the client's docker plugin does not allow host paths (Nomad's default; plugin \"docker\" { config { volumes { enabled = true } } }): integration/multihost runs this job on clients that do")
	}
}

// dockerVolumesEnabled: the client's docker plugin allows host paths (its
// fingerprint, drivers/docker/fingerprint.go, v1.11.3).
func dockerVolumesEnabled(t *testing.T) bool {
	t.Helper()
	c := agent.Client(t)
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("no nodes: %v", err)
	}
	n, _, err := c.Nodes().Info(nodes[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n.Attributes["driver.docker.volumes.enabled"] == "true"
}

// refusedForDockerVolumes: p, whose docker tasks mount host paths, is
// refused at submission on a client without the docker volumes option,
// the error naming it, and no job is registered.
func refusedForDockerVolumes(t *testing.T, p *translate.Plan) {
	t.Helper()
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	p.Options["id"] = fmt.Sprintf("%s-%d", p.Job.Name, time.Now().UnixNano()%1e9)
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = d.Submit(ctx, p)
	t.Logf("Submit: %v", err)
	if !errors.Is(err, nomad.ErrPlacement) || !strings.Contains(fmt.Sprint(err), "volumes { enabled = true }") || !strings.Contains(fmt.Sprint(err), "driver.docker.volumes.enabled") {
		t.Errorf("Submit: %v, want a placement error naming the docker plugin's volumes option", err)
	}
	if _, _, err := agent.Client(t).Jobs().Info(nomad.JobIDFor(p), nil); err == nil {
		t.Errorf("the job %s was registered", nomad.JobIDFor(p))
	}
}
