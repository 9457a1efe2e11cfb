package slurm

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
)

// A PyTorchJob as users write it: the dataset claim read-only at /data,
// checkpoints on a per-user claim under /data/ckpt (mounted after /data),
// and a cache volume no rule maps.
const claimsJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: ddp
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: pytorch
            image: pytorch/pytorch:2.3.0
            command: ["python", "/data/train.py", "--ckpt=/data/ckpt"]
            volumeMounts:
            - name: ckpt
              mountPath: /data/ckpt
              subPath: run1
            - name: dataset
              mountPath: /data
              readOnly: true
            - name: cache
              mountPath: /cache
          volumes:
          - name: dataset
            persistentVolumeClaim:
              claimName: imagenet
          - name: ckpt
            persistentVolumeClaim:
              claimName: checkpoints
          - name: cache
            persistentVolumeClaim:
              claimName: cache
`

// TestVolumeBinds: each mapped claim becomes a taskns bind line from the
// rule's path (${user} substituted, subPath joined), read-only as the mount
// or the rule says, parents first, held in the rule's tree (the user's own
// directory, no link, for a ${user} path); an unmapped one gets none; a
// user name or a subPath that would leave the tree is refused at the
// volume.
func TestVolumeBinds(t *testing.T) {
	job, d := load.Read([]byte(claimsJob), jobs.ReadOptions{Path: "job.yaml"})
	if d.HasErrors() {
		t.Fatal(d.Error())
	}
	site, sd := siteconfig.ParseConfig([]byte(`volume "imagenet" { path = "/lustre/datasets/imagenet" }
volume "checkpoints" { path = "/gpfs/home/${user}/ckpt" }
`), "site.hcl")
	if sd.HasErrors() {
		t.Fatal(sd.Error())
	}
	ri := roleInfo{Role: job.Roles[0]}
	got, err := viewData(ri, job, "", settings{site: site, user: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	want := "_t_nsbind_0='bind\tro\t/lustre/datasets/imagenet\t/data\t/lustre/datasets/imagenet\nbind\trw\t/gpfs/home/alice/ckpt/run1\t/data/ckpt\t/gpfs/home/alice\tnolink'\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("view data:\n%s\nwant it to end with:\n%s", got, want)
	}
	if got, _ := viewData(ri, job, "exec", settings{site: site, user: "alice"}); got != "" {
		t.Errorf("a container role got view data %q", got)
	}
	if _, err := viewData(ri, job, "", settings{site: site, user: "../bob"}); err == nil || !strings.Contains(err.Error(), `volume "ckpt"`) {
		t.Errorf("user ../bob: err = %v, want a refusal at the volume", err)
	}
	ri.Role.Volumes[0].SubPath = "../bob/ckpt"
	if _, err := viewData(ri, job, "", settings{site: site, user: "alice"}); err == nil || !strings.Contains(err.Error(), "leaves the mapped directory") {
		t.Errorf("subPath ../bob/ckpt: err = %v, want a refusal at the volume", err)
	}
}

// TestEmptyDirBinds: a pod's emptyDirs become taskns "empty" lines
// (a fresh directory, or a tmpfs of the sizeLimit for medium Memory),
// ordered with the binds, parents first.
func TestEmptyDirBinds(t *testing.T) {
	site, sd := siteconfig.ParseConfig([]byte(`volume "imagenet" { path = "/lustre/datasets/imagenet" }`), "site.hcl")
	if sd.HasErrors() {
		t.Fatal(sd.Error())
	}
	r := &jobs.Role{Name: "worker", Volumes: []jobs.Volume{
		{Name: "fast", Kind: "emptyDir", Source: "Memory", SizeMiB: 512, MountPath: "/data/fast"},
		{Name: "dataset", Kind: "persistentVolumeClaim", Source: "imagenet", MountPath: "/data"},
		{Name: "cache", Kind: "emptyDir", MountPath: "/cache"},
	}}
	got, err := volumeBinds(r, settings{site: site, user: "alice"})
	want := "empty\tdisk\t0\t/cache\nbind\trw\t/lustre/datasets/imagenet\t/data\t/lustre/datasets/imagenet\nempty\tmemory\t512\t/data/fast"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	r.Volumes[0].MountPath = "/data/../etc"
	if _, err := volumeBinds(r, settings{site: site, user: "alice"}); err == nil {
		t.Error("an emptyDir at /data/../etc was accepted")
	}
}

// TestHostPathBinds: a pod's hostPath that no site rule maps is the
// node's path at the job's path (core/v1 HostPathVolumeSource), as on
// Nomad and locally; at its own path it needs no bind; a site rule for it
// wins; a bad path is refused at the volume.
func TestHostPathBinds(t *testing.T) {
	site, sd := siteconfig.ParseConfig([]byte(`volume "/mnt/ds" { path = "/lustre/ds" }`), "site.hcl")
	if sd.HasErrors() {
		t.Fatal(sd.Error())
	}
	r := &jobs.Role{Name: "node", Volumes: []jobs.Volume{
		{Name: "initializer", Kind: "hostPath", Source: "/tmp/ws", MountPath: "/workspace"},
		{Name: "same", Kind: "hostPath", Source: "/srv/data", MountPath: "/srv/data/"},
		{Name: "ro", Kind: "hostPath", Source: "/etc/ssl", MountPath: "/certs", ReadOnly: true},
		{Name: "mapped", Kind: "hostPath", Source: "/mnt/ds", MountPath: "/ds"},
	}}
	got, err := volumeBinds(r, settings{site: site, user: "alice"})
	want := "bind\tro\t/etc/ssl\t/certs\nbind\trw\t/lustre/ds\t/ds\t/lustre/ds\nbind\trw\t/tmp/ws\t/workspace"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	r.Volumes[0].Source = "/tmp/a\nb"
	if _, err := volumeBinds(r, settings{site: site, user: "alice"}); err == nil {
		t.Error("a hostPath with a newline was accepted")
	}
}
