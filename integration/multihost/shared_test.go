package multihost_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// sharedClaims is the shared-claim TFJob (integration/testdata/view/
// tfjob-shared.yaml) planned on c's site with its claims mapped into a
// temporary directory every host sees (the clusters' hosts share the
// machine's file system, as a cluster's NFS or Lustre): the dataset (100
// lines) and the checkpoints per user. It returns the plan and the
// directory.
func sharedClaims(t *testing.T, c *cluster) (*translate.Plan, string) {
	t.Helper()
	return sharedClaimsWith(t, c, nil)
}

// sharedClaimsWith is sharedClaims with the volume rules rules(shared)
// (nil: the path rules).
func sharedClaimsWith(t *testing.T, c *cluster, rulesOf func(string) string) (*translate.Plan, string) {
	t.Helper()
	shared := t.TempDir()
	for _, d := range []string{"data", "ckpt/ci"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chmod(filepath.Join(shared, "ckpt", "ci"), 0o777)
	if err := os.WriteFile(filepath.Join(shared, "data", "train.txt"), []byte(strings.Repeat("x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `volume "training-data" { path = "` + shared + `/data" }
volume "checkpoints" { path = "` + shared + `/ckpt/${user}" }
`
	if rulesOf != nil {
		src = rulesOf(shared)
	}
	rules, d := siteconfig.ParseConfig([]byte(src), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	site := *c.Site
	site.Volumes = rules.Volumes
	path := filepath.Join(repoRoot(), "integration", "testdata", "view", "tfjob-shared.yaml")
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, &site, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{}
	return plan, shared
}

const sharedChief = "shared-worker-0 read 100 lines\nshared-worker-1 read 100 lines\n"

// checkSharedCkpts: both workers' checkpoints are in the user's tree.
func checkSharedCkpts(t *testing.T, shared string) {
	t.Helper()
	for _, name := range []string{"shared-worker-0", "shared-worker-1"} {
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", "ci", name+".ckpt")); err != nil || string(b) != name+" read 100 lines\n" {
			t.Errorf("%s's checkpoint in the shared tree: %q, %v", name, b, err)
		}
	}
}

// TestSharedClaimTFJobNomad: on the Nomad cluster (raw_exec, the three
// tasks on three clients) the workers read the mapped dataset and write
// checkpoints the chief reads from another host; each task's view binds
// the mapped directories at the job's paths on its own client.
func TestSharedClaimTFJobNomad(t *testing.T) {
	c := need(t, "nomad")
	sharedClaimNomad(t, c, c)
}

// TestSharedClaimTFJobNomadDocker: the same on the clients' own Docker
// daemons, the claims driver volumes of the mapped paths (cluster.sh's
// clients allow host paths: plugin "docker" volumes { enabled = true }).
func TestSharedClaimTFJobNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	sharedClaimNomad(t, c, dockerCluster(t, c))
}

// TestSharedClaimTFJobNomadDockerHostVolume: the same with the claims
// mapped to Nomad host volumes (nomad_host_volume rules: a group volume
// and a volume_mount, which the docker plugin mounts whatever its volumes
// setting), as a site declares its shared file systems on every client:
// the shared tree's data and ci's checkpoint directory registered on each
// client as dynamic host volumes of one name (Nomad 1.10+, `nomad volume
// register`; the capabilities a request without access_mode asks for,
// scheduler/feasible/feasible.go hostVolumeIsAvailable, v1.11.3).
func TestSharedClaimTFJobNomadDockerHostVolume(t *testing.T) {
	c := need(t, "nomad")
	dc := dockerCluster(t, c)
	cl := nomadClient(t, c)
	tag := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	sharedClaimNomadWith(t, c, dc, func(shared string) string {
		train, ckpt := "mh-train-"+tag, "mh-ckpt-"+tag
		registerHostVolumes(t, cl, map[string]string{train: filepath.Join(shared, "data"), ckpt: filepath.Join(shared, "ckpt", "ci")})
		return `volume "training-data" { nomad_host_volume = "` + train + `" }
volume "checkpoints" { nomad_host_volume = "` + ckpt + `" }
`
	})
}

// registerHostVolumes registers each dir of dirs (host volume name →
// directory) on every client, waits until all are ready (a client
// fingerprints a registered volume within seconds: all at once, not one
// after the other) and deletes them when the test ends.
func registerHostVolumes(t *testing.T, cl *api.Client, dirs map[string]string) {
	t.Helper()
	nodes, _, err := cl.Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("no nodes: %v", err)
	}
	var ids []string
	for name, dir := range dirs {
		for _, n := range nodes {
			resp, _, err := cl.HostVolumes().Register(&api.HostVolumeRegisterRequest{Volume: &api.HostVolume{
				Name: name, NodeID: n.ID, HostPath: dir,
				RequestedCapabilities: []*api.HostVolumeCapability{
					{AccessMode: api.HostVolumeAccessModeSingleNodeWriter, AttachmentMode: api.HostVolumeAttachmentModeFilesystem},
					{AccessMode: api.HostVolumeAccessModeSingleNodeReader, AttachmentMode: api.HostVolumeAttachmentModeFilesystem},
				},
			}}, nil)
			if err != nil {
				t.Fatalf("registering host volume %s on %s: %v", name, n.Name, err)
			}
			id := resp.Volume.ID
			ids = append(ids, id)
			t.Cleanup(func() {
				if _, _, err := cl.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: id}, nil); err != nil {
					t.Errorf("deleting host volume %s: %v", name, err)
				}
			})
		}
	}
	for _, id := range ids {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			v, _, err := cl.HostVolumes().Get(id, nil)
			if err == nil && v.State == api.HostVolumeStateReady {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("host volume %s not ready: %+v, %v", id, v, err)
			}
		}
	}
}

// sharedClaimNomad runs the shared-claim TFJob planned on site's cluster
// on c and checks the chief's output and the checkpoints.
func sharedClaimNomad(t *testing.T, c, site *cluster) {
	t.Helper()
	sharedClaimNomadWith(t, c, site, nil)
}

// sharedClaimNomadWith is sharedClaimNomad with the volume rules
// rules(shared tree) in place of the path rules (nil: the path rules).
func sharedClaimNomadWith(t *testing.T, c, site *cluster, rules func(string) string) {
	t.Helper()
	cl := nomadClient(t, c)
	plan, shared := sharedClaimsWith(t, site, rules)
	tasks, _ := runNomadPlaced(t, c, cl, plan) // succeeded, spread over the clients
	var chief string
	for _, nt := range tasks {
		if nt.role != "chief" {
			continue
		}
		// a Docker task's output reaches its file through Nomad's docker
		// logger, which may still be writing it when the job has ended
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			chief = catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
			if chief == sharedChief || time.Now().After(deadline) {
				break
			}
		}
	}
	if chief != sharedChief {
		t.Fatalf("chief printed %q, want %q", chief, sharedChief)
	}
	checkSharedCkpts(t, shared)
}

// TestSharedClaimTFJobSlurm: the same on the Slurm cluster (three hosts).
func TestSharedClaimTFJobSlurm(t *testing.T) {
	c := need(t, "slurm")
	plan, shared := sharedClaims(t, c)
	r := runSlurm(t, plan, 3*time.Minute)
	if chief := r.taskLog(t, "chief", 0); r.final.Phase != completion.PhaseSucceeded || chief != sharedChief {
		t.Fatalf("final %+v, chief printed %q, want %q", r.final, chief, sharedChief)
	}
	checkSpread(t, c, taskAddrs(plan.Job, r.topology(t)))
	checkSharedCkpts(t, shared)
}
