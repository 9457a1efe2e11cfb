package nomad_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// sharedDirs is a temporary shared tree for the shared-claim TFJob: the
// dataset (100 lines) in data/, alice's checkpoint directory ckpt/alice.
func sharedDirs(t *testing.T) string {
	t.Helper()
	shared := t.TempDir()
	for _, d := range []string{"data", "ckpt/alice"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shared, "data", "train.txt"), []byte(strings.Repeat("x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	return shared
}

// sharedClaimRun runs integration/testdata/view/tfjob-shared.yaml under
// cfg with the volume rules of site (HCL): the two workers read the
// dataset claim and write their checkpoints to the checkpoint claim; the
// chief reads both, and they are in shared/ckpt/alice afterwards.
func sharedClaimRun(t *testing.T, cfg *siteconfig.Config, site, shared string) {
	t.Helper()
	rules, d := siteconfig.ParseConfig([]byte(site), "site.hcl")
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	cfg.Volumes = rules.Volumes
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "tfjob-shared.yaml"), cfg)
	res, id := run(t, p)
	allocs, _, err := agent.Client(t).Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "shared-worker-0 read 100 lines\nshared-worker-1 read 100 lines\n"
	chief := ""
	for _, a := range allocs {
		if a.TaskGroup != "chief" {
			continue
		}
		// a Docker task's output reaches its log through Nomad's docker
		// logger, which may still be writing it when the job has ended
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			chief = catLogs(t, a.ID, nomad.MainTask) + catStderr(t, a.ID, nomad.MainTask)
			if chief == want || time.Now().After(deadline) {
				break
			}
		}
	}
	if res.Phase != completion.PhaseSucceeded || chief != want {
		t.Fatalf("result %+v, chief printed %q, want %q", res, chief, want)
	}
	for i, name := range []string{"shared-worker-0", "shared-worker-1"} {
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", "alice", name+".ckpt")); err != nil || string(b) != name+" read 100 lines\n" {
			t.Errorf("worker %d's checkpoint in the shared tree: %q, %v", i, b, err)
		}
	}
}

// pathRules map the TFJob's claims to directories of shared (the
// checkpoint one per user).
func pathRules(shared string) string {
	return `volume "training-data" { path = "` + shared + `/data" }
volume "checkpoints" { path = "` + shared + `/ckpt/${user}" }
`
}

// TestSharedClaimTFJobOnRawExec: the TFJob's claims mapped to a shared
// directory (per user for the checkpoints), bound at the job's paths by
// each task's view.
func TestSharedClaimTFJobOnRawExec(t *testing.T) {
	shared := sharedDirs(t)
	sharedClaimRun(t, site(), pathRules(shared), shared)
}

// TestSharedClaimTFJobOnDocker: the same on docker, the claims driver
// volumes of the mapped paths (the client's docker plugin must allow host
// paths: volumes { enabled = true }). On a client with Nomad's default
// docker settings (this agent's), the job is refused at submission,
// naming the option, and nothing is registered; integration/multihost
// TestSharedClaimTFJobNomadDocker runs it on clients that allow them.
func TestSharedClaimTFJobOnDocker(t *testing.T) {
	cfg := dockerSite(t)
	shared := sharedDirs(t)
	if !dockerVolumesEnabled(t) {
		rules, d := siteconfig.ParseConfig([]byte(pathRules(shared)), "site.hcl")
		if d.HasErrors() {
			t.Fatal(d.Error())
		}
		cfg.Volumes = rules.Volumes
		refusedForDockerVolumes(t, loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "view", "tfjob-shared.yaml"), cfg))
		return
	}
	sharedClaimRun(t, cfg, pathRules(shared), shared)
}

// TestSharedClaimTFJobOnDockerHostVolume: the same on docker with the
// claims mapped to Nomad host volumes (rules with nomad_host_volume, a
// group volume and a volume_mount each), which the client's docker plugin
// mounts whatever its volumes setting. The shared directories are
// registered as dynamic host volumes of the client (Nomad 1.10+: `nomad
// volume register`, type host), with the capabilities a volume request
// without access_mode asks for (single-node-writer, and
// single-node-reader-only for a read-only mount: scheduler/feasible/
// feasible.go hostVolumeIsAvailable, v1.11.3).
func TestSharedClaimTFJobOnDockerHostVolume(t *testing.T) {
	cfg := dockerSite(t)
	shared := sharedDirs(t)
	tag := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	train := registerHostVolume(t, "js-train-"+tag, filepath.Join(shared, "data"))
	ckpt := registerHostVolume(t, "js-ckpt-"+tag, filepath.Join(shared, "ckpt", "alice"))
	sharedClaimRun(t, cfg, `volume "training-data" { nomad_host_volume = "`+train+`" }
volume "checkpoints" { nomad_host_volume = "`+ckpt+`" }
`, shared)
}

// registerHostVolume registers dir as the dynamic host volume name of the
// agent's client and deletes it when the test ends.
func registerHostVolume(t *testing.T, name, dir string) string {
	t.Helper()
	c := agent.Client(t)
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("no nodes: %v", err)
	}
	resp, _, err := c.HostVolumes().Register(&api.HostVolumeRegisterRequest{Volume: &api.HostVolume{
		Name: name, NodeID: nodes[0].ID, HostPath: dir,
		RequestedCapabilities: []*api.HostVolumeCapability{
			{AccessMode: api.HostVolumeAccessModeSingleNodeWriter, AttachmentMode: api.HostVolumeAttachmentModeFilesystem},
			{AccessMode: api.HostVolumeAccessModeSingleNodeReader, AttachmentMode: api.HostVolumeAttachmentModeFilesystem},
		},
	}}, nil)
	if err != nil {
		t.Fatalf("registering host volume %s: %v", name, err)
	}
	id := resp.Volume.ID
	t.Cleanup(func() {
		// refused while an allocation of the job still claims it
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
			_, _, err := c.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: id}, nil)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("deleting host volume %s: %v", name, err)
				return
			}
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		v, _, err := c.HostVolumes().Get(id, nil)
		if err == nil && v.State == api.HostVolumeStateReady {
			return name
		}
		if time.Now().After(deadline) {
			t.Fatalf("host volume %s not ready: %+v, %v", name, v, err)
		}
	}
}
