package local

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestViewSharedClaimTFJob: the TFJob whose two workers read the dataset
// claim (100 lines) and write checkpoints to the checkpoint claim, which
// the chief then reads, run as local processes: the site maps the claims
// to directories of this machine (the checkpoint one per user), and each
// task's view binds them at the job's paths. The checkpoints are in
// alice's directory afterwards, and nothing appears at the job's paths on
// the host.
func TestViewSharedClaimTFJob(t *testing.T) {
	needView(t)
	shared := t.TempDir()
	for _, d := range []string{"data", "ckpt/alice"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shared, "data", "train.txt"), []byte(strings.Repeat("x\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := siteconfig.ParseConfig([]byte(`volume "training-data" { path = "`+shared+`/data" }
volume "checkpoints" { path = "`+shared+`/ckpt/${user}" }
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	file := filepath.Join("..", "..", "integration", "testdata", "view", "tfjob-shared.yaml")
	job, diags := load.Load(file, jobs.ReadOptions{Path: "tfjob-shared.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, cfg, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	res, runDir, _ := runPlan(t, plan, Options{Dir: t.TempDir()})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	if got, want := taskStdout(t, runDir, "chief-0"), "shared-worker-0 read 100 lines\nshared-worker-1 read 100 lines\n"; got != want {
		t.Errorf("the chief printed %q, want %q", got, want)
	}
	for _, name := range []string{"shared-worker-0", "shared-worker-1"} {
		if b, err := os.ReadFile(filepath.Join(shared, "ckpt", "alice", name+".ckpt")); err != nil || string(b) != name+" read 100 lines\n" {
			t.Errorf("%s's checkpoint in alice's directory: %q, %v", name, b, err)
		}
	}
	for _, p := range []string{"/dataset", "/ckpt"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the host", p)
		}
	}
}

// pythonImage is the image integration/nomad/build-torch-image.sh builds
// (python3 with the standard library), which the LeinaoPAI seed's
// python3 command needs under -docker.
const pythonImage = "jobshift/torch:bookworm"

// TestDockerLeinaoStorage: the LeinaoPAI seed (ps x2, worker x2, every
// task binding 10001-10003 in its container, so only -docker runs it
// here) reads its code and data from /gdata and writes its output under
// /userhome, mapped by site rules to this machine's directories
// (/userhome per user) and mounted into each container: every task's
// output lands in alice's directory.
func TestDockerLeinaoStorage(t *testing.T) {
	if err := checkDocker(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Docker engine required in CI: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	if err := exec.Command("docker", "image", "inspect", pythonImage).Run(); err != nil {
		t.Skipf("no image %s (integration/nomad/build-torch-image.sh builds it): %v", pythonImage, err)
	}
	shared := t.TempDir()
	for _, d := range []string{"gdata/tensorflow-distributed/code", "gdata/tensorflow-distributed/data", "userhome/alice/tensorflow-distributed/output"} {
		if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, err := os.ReadFile(filepath.Join("..", "..", "integration", "testdata", "view", "mnist_replica.py"))
	if err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string]string{"code/mnist_replica.py": string(code), "data/train.txt": strings.Repeat("x\n", 60)} {
		if err := os.WriteFile(filepath.Join(shared, "gdata/tensorflow-distributed", f), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := siteconfig.ParseConfig([]byte(`volume "gdata" {
  path      = "`+shared+`/gdata"
  read_only = true
}
volume "userhome" { path = "`+shared+`/userhome/${user}" }
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	file := filepath.Join("..", "..", "integration", "testdata", "view", "leinao-storage.json")
	job, diags := load.Load(file, jobs.ReadOptions{Path: "leinao-storage.json"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, cfg, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if plan.Job.Source.Dialect != jobs.ContractLeinao {
		t.Fatalf("dialect %q, want leinao", plan.Job.Source.Dialect)
	}
	for _, r := range plan.Job.Roles {
		r.Image = pythonImage // the seed's registry is LeinaoPAI's own
	}
	out := &syncBuf{}
	res, _, _ := runPlan(t, plan, Options{Docker: true, Output: out, Grace: 3 * time.Second})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v\n%s", res, out)
	}
	for _, task := range []string{"ps-0", "ps-1", "worker-0", "worker-1"} {
		b, err := os.ReadFile(filepath.Join(shared, "userhome/alice/tensorflow-distributed/output", task+".txt"))
		if want := task + " read 60 lines; ps 2, workers 2\n"; err != nil || string(b) != want {
			t.Errorf("%s's output in alice's /userhome: %q, %v; want %q", task, b, err, want)
		}
	}
}

// TestDockerMountsRefused: under -docker, a user's mapped directory that
// is a link to another user's, a ConfigMap volume (a platform file only
// the task view places) and a mount path with '..' are refused before
// anything runs, located at the job's line.
func TestDockerMountsRefused(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bob"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bob"), filepath.Join(root, "mallory")); err != nil {
		t.Fatal(err)
	}
	cfg, diags := siteconfig.ParseConfig([]byte(`volume "home" { path = "`+root+`/${user}" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	storage := filepath.Join("..", "..", "integration", "testdata", "view", "pai-storage.yaml")
	for _, c := range []struct {
		name, file, user string
		edit             func(*jobs.Job)
		kind             error
		want             []string
	}{
		{"user dir a link", storage, "mallory", nil, taskns.ErrValue, []string{"pai-storage.yaml:20:7:", "outside the user's tree"}},
		{"dotdot mount path", storage, "bob", func(j *jobs.Job) { j.Roles[0].Volumes[0].MountPath = "/userhome/../etc" }, taskns.ErrValue, []string{"pai-storage.yaml:20:7:", `".." element`}},
		{"configmap file", filepath.Join("..", "..", "examples", "pytorchjob-configmap-entry.yaml"), "bob", nil, ErrFilesDocker, []string{"pytorchjob-configmap-entry.yaml:", "without -docker"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			job, diags := load.Load(c.file, jobs.ReadOptions{Path: filepath.Base(c.file)})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if c.edit != nil {
				c.edit(job)
			}
			plan, diags := translate.Build(job, cfg, nil, c.user)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			d, err := New(Options{Docker: true, RunDir: filepath.Join(t.TempDir(), "run")})
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Render(context.Background(), plan)
			if !errors.Is(err, c.kind) {
				t.Fatalf("err = %v, want %v", err, c.kind)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal lacks %q: %v", w, err)
				}
			}
		})
	}
}

// dockerEmptyDirJob's container works as nobody (an image's USER, here
// set by the command itself) in the pod's emptyDir.
const dockerEmptyDirJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: scratch
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command:
            - sh
            - -c
            - |
              echo "scratch: $(stat -c %a /scratch)"
              setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'echo x > /scratch/out && echo "nobody wrote: $(stat -c %U /scratch/out)"'
            volumeMounts:
            - {name: scratch, mountPath: /scratch}
          volumes:
          - name: scratch
            emptyDir: {}
`

// TestDockerEmptyDirWritableByAll: under -docker an emptyDir is a
// directory the driver makes 0777 before the container starts, as the
// kubelet makes it (Docker would make it root's, 0755): a container user
// other than root writes there.
func TestDockerEmptyDirWritableByAll(t *testing.T) {
	needDocker(t)
	if err := exec.Command("docker", "image", "inspect", pythonImage).Run(); err != nil {
		t.Skipf("no image %s (integration/nomad/build-torch-image.sh builds it): %v", pythonImage, err)
	}
	file := filepath.Join(t.TempDir(), "scratch.yaml")
	if err := os.WriteFile(file, []byte(dockerEmptyDirJob), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(t, file)
	plan.Job.Roles[0].Image = pythonImage
	out := &syncBuf{}
	res, runDir, _ := runPlan(t, plan, Options{Docker: true, Output: out, Grace: 3 * time.Second})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v\n%s", res, out)
	}
	if got, want := taskStdout(t, runDir, "master-0"), "scratch: 777\nnobody wrote: nobody\n"; got != want {
		t.Errorf("master-0 printed %q, want %q", got, want)
	}
}
