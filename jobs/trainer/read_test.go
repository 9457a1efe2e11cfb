package trainer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

func read(t *testing.T, src string, runtimes ...string) (*jobs.Job, string) {
	t.Helper()
	job, diags := Read([]byte(src), jobs.ReadOptions{Path: "job.yaml", Runtimes: runtimes})
	var b strings.Builder
	for _, d := range diags {
		if d.Subject == nil {
			t.Errorf("unlocated diagnostic: %s", d.Summary)
			continue
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", d.Subject.Filename, d.Subject.Start.Line, d.Summary)
	}
	return job, b.String()
}

const torchJob = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: t
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 3
    command: [torchrun, train.py]
    env:
      - name: FOO
        value: bar
    resourcesPerNode:
      requests:
        cpu: "2500m"
`

// Rules of torch.go EnforceMLPolicy @v2.3.0 and the built-in
// manifests/base/runtimes/torch_distributed.yaml @v2.3.0.
func TestTorchBuiltin(t *testing.T) {
	job, d := read(t, torchJob)
	if job == nil {
		t.Fatalf("no job: %s", d)
	}
	if len(job.Roles) != 1 || job.Roles[0].Name != "node" || job.Roles[0].Instances != 3 {
		t.Fatalf("roles: %+v", job.Roles)
	}
	r := job.Roles[0]
	if r.Image != "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime" {
		t.Errorf("image from the runtime: %q", r.Image)
	}
	if strings.Join(r.Command.Command, " ") != "torchrun train.py" {
		t.Errorf("command: %q", r.Command.Command)
	}
	if len(r.Env) != 1 || r.Env[0].Name != "FOO" {
		t.Errorf("env: %+v", r.Env)
	}
	tr := job.Extras.Trainer
	// "auto" without GPUs: max(1, requests.cpu rounded up) = 3 (getNumCPUPerNode).
	if tr.NprocPerNode != "3" || tr.NumNodes != 3 || tr.TrainerRole != "node" {
		t.Errorf("trainer: %+v", tr)
	}
	if job.Contracts[0] != jobs.ContractTrainerTorch || job.Completion.Kind != jobs.CompletionJobSet {
		t.Errorf("contracts %v completion %v", job.Contracts, job.Completion.Kind)
	}
	if p := r.Ports; len(p) != 1 || p[0].Number != 29500 {
		t.Errorf("ports: %+v", p)
	}
	if r.BackoffLimit == nil || *r.BackoffLimit != 6 {
		t.Errorf("backoffLimit default (batch/v1) 6: %v", r.BackoffLimit)
	}
}

// Admission refusals, located: torch.go Validate (reserved PET_*),
// xgboost.go Validate (DMLC_*), trainjob_types.go (name, deadline,
// managedBy), the runtime lookup.
func TestRefusals(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"PET env (torch.go @v2.3.0)", strings.Replace(torchJob, "name: FOO", "name: PET_NNODES", 1), "job.yaml:12: Reserved variable"},
		{"DMLC env (xgboost.go @v2.3.0)", strings.Replace(strings.Replace(torchJob, "torch-distributed", "xgboost-distributed", 1), "name: FOO", "name: DMLC_TASK_ID", 1), "job.yaml:12: Reserved variable"},
		{"name (trainjob_types.go XValidation @v2.3.0)", strings.Replace(torchJob, "name: t\n", "name: T_1\n", 1), "job.yaml:4: Invalid TrainJob name"},
		{"runtime not found", strings.Replace(torchJob, "torch-distributed", "nope", 1), "job.yaml:7: Runtime not found"},
		{"kind default ClusterTrainingRuntime", strings.Replace(torchJob, "name: torch-distributed", "name: torch-distributed\n    kind: TrainingRuntime", 1), "job.yaml:7: Runtime not found"},
		{"deadline Minimum=1", strings.Replace(torchJob, "spec:\n", "spec:\n  activeDeadlineSeconds: 0\n", 1), "job.yaml:6: Invalid activeDeadlineSeconds"},
		{"managedBy enum", strings.Replace(torchJob, "spec:\n", "spec:\n  managedBy: me\n", 1), "job.yaml:6: Invalid managedBy"},
		{"initializer needs its job (jobset.go Validate @v2.3.0)", torchJob + "  initializer:\n    dataset:\n      storageUri: s3://b/k\n", "job.yaml:18: No dataset-initializer job in the runtime"},
		{"runtimePatches: no env for node (jobset.go Validate @v2.3.0)", torchJob + patch("example.com/x", "node", "env: [{name: A, value: b}]"), "job.yaml:30: Override sets env of the node container"},
		{"runtimePatches: container must exist", torchJob + patch("example.com/x", "sidecar", "env: [{name: A, value: b}]"), "job.yaml:29: Unknown container"},
		{"runtimePatches: manager is a domain-prefixed path", torchJob + patch("me", "node", "volumeMounts: []"), "job.yaml:18: Invalid runtime patch manager"},
	}
	for _, c := range cases {
		_, d := read(t, c.src)
		if !strings.Contains(d, c.want) {
			t.Errorf("%s: want %q in\n%s", c.name, c.want, d)
		}
	}
}

const mpiRuntime = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: mpi
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      numProcPerNode: 2
      sshAuthMountPath: /home/mpiuser/.ssh
  template:
    spec:
      successPolicy:
        operator: All
        targetReplicatedJobs: [launcher]
      replicatedJobs:
        - name: launcher
          dependsOn:
            - name: node
              status: Ready
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi
                      command: [mpirun, python3, allreduce.py]
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: mpi
                      command: [/usr/sbin/sshd, -De]
`

const mpiJob = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: allreduce
spec:
  runtimeRef:
    name: mpi
    kind: TrainingRuntime
  trainer:
    numNodes: 2
`

// mpi.go EnforceMLPolicy and buildHostFileConfigMap @v2.3.0: node count,
// slots, the hostfile of node FQDNs; the runtime after the TrainJob in one
// file, and from a -runtime file.
func TestMPIRuntime(t *testing.T) {
	dir := t.TempDir()
	rf := filepath.Join(dir, "rt.yaml")
	if err := os.WriteFile(rf, []byte(mpiRuntime), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		src  string
		runs []string
	}{"same file": {mpiJob + "---\n" + mpiRuntime, nil}, "-runtime": {mpiJob, []string{rf}}} {
		job, d := read(t, c.src, c.runs...)
		if job == nil {
			t.Fatalf("%s: %s", name, d)
		}
		node, launcher := job.Role("node"), job.Role("launcher")
		if node.Instances != 2 || launcher.Instances != 1 {
			t.Errorf("%s: node %d launcher %d", name, node.Instances, launcher.Instances)
		}
		want := "allreduce-node-0-0.allreduce slots=2\nallreduce-node-0-1.allreduce slots=2\n"
		if len(launcher.Files) != 1 || launcher.Files[0].Path != "/etc/mpi/hostfile" || launcher.Files[0].Content != want {
			t.Errorf("%s: hostfile %+v", name, launcher.Files)
		}
		// "node Ready" is kept by the ssh emulation's barrier, not as a step
		if len(launcher.DependsOn) != 0 {
			t.Errorf("%s: dependsOn %+v", name, launcher.DependsOn)
		}
		if got := job.Completion.SuccessRoles; len(got) != 1 || got[0] != "launcher" {
			t.Errorf("%s: success roles %v", name, got)
		}
	}
}

// Every built-in runtime reads without errors (manifests/base/runtimes @v2.3.0).
func TestBuiltins(t *testing.T) {
	for _, n := range BuiltinNames() {
		src := strings.Replace(torchJob, "torch-distributed", n, 1)
		src = strings.Replace(src, "    command: [torchrun, train.py]\n", "", 1)
		_, d := read(t, src)
		if strings.Contains(d, "Runtime not found") || strings.Contains(d, "builtin") && strings.Contains(d, "error") {
			t.Errorf("%s: %s", n, d)
		}
	}
	if len(BuiltinNames()) != 8 {
		t.Errorf("built-ins: %v", BuiltinNames())
	}
}

const initJob = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tune
spec:
  runtimeRef:
    name: torchtune-llama3.2-1b
  initializer:
    dataset:
      storageUri: hf://tatsu-lab/alpaca
`

// builder.go Initializer @v2.3.0: the initializer jobs get STORAGE_URI
// (the TrainJob's wins over the runtime's); a URI that needs the network
// is refused at its position unless a site rule maps it, and then the
// upstream initializer (no command) copies the site's directory to its
// output path.
func TestInitializerStorage(t *testing.T) {
	job, d := read(t, initJob)
	if !strings.Contains(d, "job.yaml:10: Storage URI needs the network") {
		t.Errorf("no located refusal:\n%s", d)
	}
	opts := jobs.ReadOptions{Path: "job.yaml", Lossy: true, StoragePath: func(u string) (string, bool) {
		return "/site/" + strings.TrimPrefix(u, "hf://"), strings.HasPrefix(u, "hf://")
	}}
	job, _ = Read([]byte(initJob), opts)
	if job == nil {
		t.Fatal("no job")
	}
	ds, model := job.Role("dataset-initializer"), job.Role("model-initializer")
	if got := strings.Join(ds.Command.Command, " "); !strings.HasSuffix(got, "/workspace/dataset /site/tatsu-lab/alpaca") {
		t.Errorf("dataset initializer command %q", got)
	}
	if got := strings.Join(model.Command.Command, " "); !strings.HasSuffix(got, "/workspace/model /site/meta-llama/Llama-3.2-1B-Instruct") {
		t.Errorf("model initializer command %q", got)
	}
	if len(ds.Env) != 1 || ds.Env[0].Value != "hf://tatsu-lab/alpaca" {
		t.Errorf("STORAGE_URI must stay as written: %+v", ds.Env)
	}
	node := job.Role("node")
	if len(node.DependsOn) != 2 || node.DependsOn[0].Status != jobs.DependsComplete {
		t.Errorf("trainer dependsOn %+v", node.DependsOn)
	}
}

// patch is a runtimePatches entry for the node job's container.
func patch(manager, container, field string) string {
	return "  runtimePatches:\n    - manager: " + manager + "\n      trainingRuntimeSpec:\n        template:\n          spec:\n            replicatedJobs:\n" +
		"              - name: node\n                template:\n                  spec:\n                    template:\n                      spec:\n" +
		"                        containers:\n                          - name: " + container + "\n                            " + field + "\n"
}

// TestFieldRefNamespace: a fieldRef to metadata.namespace in trainer.env
// is the TrainJob's namespace, where JobSet makes its pods, and "default"
// when the file names none.
func TestFieldRefNamespace(t *testing.T) {
	env := "      - name: NS\n        valueFrom: {fieldRef: {fieldPath: metadata.namespace}}\n"
	for ns, want := range map[string]string{"": "default", "  namespace: research\n": "research"} {
		src := strings.Replace(strings.Replace(torchJob, "  name: t\n", "  name: t\n"+ns, 1), "        value: bar\n", "        value: bar\n"+env, 1)
		job, d := read(t, src)
		if job == nil {
			t.Fatalf("no job: %s", d)
		}
		got := ""
		for _, e := range job.Roles[0].Env {
			if e.Name == "NS" {
				got = e.Value
			}
		}
		if got != want {
			t.Errorf("namespace %q: NS=%q, want %q (%+v; %s)", ns, got, want, job.Roles[0].Env, d)
		}
	}
}
