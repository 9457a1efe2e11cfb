package trainer_test

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/trainer"
	"github.com/jobshift/jobshift/translate/contract"
)

// A TrainJob on a built-in runtime with the given trainer fields.
func onRuntime(runtime, trainerFields string) string {
	return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job\nspec:\n  runtimeRef:\n    name: " +
		runtime + "\n  trainer:\n" + trainerFields
}

// TestPolicyRules: each ML-policy rule with the value upstream's own
// plugin tests expect (kubeflow/trainer @v2.3.0), from TrainJobs written
// as users write them, through the oracle on the sample topology (node i
// at 10.0.0.<i+1>, its trainer port 20000+i).
func TestPolicyRules(t *testing.T) {
	cases := []struct {
		name, src string
		task      jobs.TaskRef
		want      map[string]string
	}{
		{"torch.go: numNodes and completion index; auto without GPU is the CPU count (torch_test.go)",
			onRuntime("torch-distributed", "    numNodes: 3\n    resourcesPerNode:\n      requests:\n        cpu: \"4\"\n"),
			jobs.TaskRef{Role: "node", Index: 2},
			map[string]string{"PET_NNODES": "3", "PET_NPROC_PER_NODE": "4", "PET_NODE_RANK": "2", "PET_MASTER_ADDR": "10.0.0.1", "PET_MASTER_PORT": "20000"}},
		{"torch.go: auto stays auto with GPUs",
			onRuntime("torch-distributed", "    numNodes: 2\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 2\n"),
			jobs.TaskRef{Role: "node", Index: 0},
			map[string]string{"PET_NPROC_PER_NODE": "auto"}},
		{"torch.go: numProcPerNode wins",
			onRuntime("torch-distributed", "    numProcPerNode: 3\n"),
			jobs.TaskRef{Role: "node", Index: 0},
			map[string]string{"PET_NNODES": "1", "PET_NPROC_PER_NODE": "3"}},
		{"torch.go: no CPU request: max(1, 0)",
			onRuntime("torch-distributed", "    numNodes: 1\n"),
			jobs.TaskRef{Role: "node", Index: 0},
			map[string]string{"PET_NPROC_PER_NODE": "1"}},
		{"jax.go: JAX_* (jax_test.go)",
			onRuntime("jax-distributed", "    numNodes: 4\n"),
			jobs.TaskRef{Role: "node", Index: 3},
			map[string]string{"JAX_NUM_PROCESSES": "4", "JAX_PROCESS_ID": "3", "JAX_COORDINATOR_ADDRESS": "10.0.0.1:20000"}},
		{"xgboost.go: example.com/gpu 4 × 2 nodes = 8 workers (xgboost_test.go gpu-job)",
			onRuntime("xgboost-distributed", "    numNodes: 2\n    resourcesPerNode:\n      requests:\n        cpu: \"8\"\n        example.com/gpu: 4\n"),
			jobs.TaskRef{Role: "node", Index: 1},
			map[string]string{"DMLC_TRACKER_URI": "10.0.0.1", "DMLC_TRACKER_PORT": "20000", "DMLC_TASK_ID": "1", "DMLC_NUM_WORKER": "8"}},
		{"xgboost.go: CPU nodes, one worker each",
			onRuntime("xgboost-distributed", "    numNodes: 3\n"),
			jobs.TaskRef{Role: "node", Index: 0},
			map[string]string{"DMLC_NUM_WORKER": "3"}},
		{"mpi.go: the launcher's OpenMPI variables; numProcPerNode 1 becomes the GPU count (deepspeed runtime)",
			onRuntime("deepspeed-distributed", "    numNodes: 3\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 4\n"),
			jobs.TaskRef{Role: "launcher", Index: 0},
			map[string]string{"OMPI_MCA_orte_default_hostfile": "/etc/mpi/hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames": "true",
				"OMPI_MCA_orte_set_default_slots": "4", "OMPI_MCA_plm_rsh_args": "-o ConnectionAttempts=10"}},
	}
	for _, c := range cases {
		job, diags := trainer.Read([]byte(c.src), jobs.ReadOptions{Path: "job.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.name, diags)
		}
		env, err := contract.Eval(job, contract.SampleTopology(job), c.task, contract.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := env.Map()
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s=%q, want %q", c.name, k, got[k], v)
			}
		}
	}
}

// TestMPINodes: mpi.go EnforceMLPolicy @v2.3.0 — with runLauncherAsNode the
// node job has numNodes-1 pods (at least 1), and the hostfile lists the
// node pods then the launcher, each with slots=numProcPerNode.
func TestMPINodes(t *testing.T) {
	for nodes, want := range map[string]string{
		"1": "job-node-0-0.job slots=1\njob-launcher-0-0.job slots=1\n",
		"3": "job-node-0-0.job slots=1\njob-node-0-1.job slots=1\njob-launcher-0-0.job slots=1\n",
	} {
		job, diags := trainer.Read([]byte(onRuntime("mlx-distributed", "    numNodes: "+nodes+"\n")), jobs.ReadOptions{Path: "job.yaml"})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		l := job.Role("launcher")
		if len(l.Files) != 1 || l.Files[0].Content != want {
			t.Errorf("numNodes %s: files %+v, want hostfile %q", nodes, l.Files, want)
		}
		if trainer.Hostfile(job) != want || !strings.HasPrefix(l.Files[0].Path, "/etc/mpi/") {
			t.Errorf("numNodes %s: Hostfile() %q", nodes, trainer.Hostfile(job))
		}
	}
}

// TestMasterNames: where the target resolves platform names (the task
// view, contract.Options.HostNames) the master address is the plugins' own
// name, <job>-node-0-0.<job> (torch.go, jax.go, xgboost.go @v2.3.0:
// torch_test.go expects PET_MASTER_ADDR "gpu-job-node-0-0.gpu-job"), and
// JOBSHIFT_HOSTS maps it to node 0's address for the view's /etc/hosts and
// its IP fallback; elsewhere the address itself.
func TestMasterNames(t *testing.T) {
	cases := []struct {
		runtime, name, named, hosts string
	}{
		{"torch-distributed", "PET_MASTER_ADDR", "job-node-0-0.job", "10.0.0.1 job-node-0-0.job PET_MASTER_ADDR"},
		{"jax-distributed", "JAX_COORDINATOR_ADDRESS", "job-node-0-0.job:20000", "10.0.0.1 job-node-0-0.job JAX_COORDINATOR_ADDRESS"},
		{"xgboost-distributed", "DMLC_TRACKER_URI", "job-node-0-0.job", "10.0.0.1 job-node-0-0.job DMLC_TRACKER_URI"},
	}
	for _, c := range cases {
		job, diags := trainer.Read([]byte(onRuntime(c.runtime, "    numNodes: 2\n")), jobs.ReadOptions{Path: "job.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.runtime, diags)
		}
		for _, names := range []bool{true, false} {
			env, err := contract.Eval(job, contract.SampleTopology(job), jobs.TaskRef{Role: "node", Index: 1}, contract.Options{HostNames: names})
			if err != nil {
				t.Fatal(err)
			}
			got, hosts := env.Map()[c.name], env.Map()[contract.HostsVar]
			switch {
			case names && (got != c.named || hosts != c.hosts):
				t.Errorf("%s with names: %s=%q %s=%q, want %q and %q", c.runtime, c.name, got, contract.HostsVar, hosts, c.named, c.hosts)
			case !names && (strings.Contains(got, "job-node") || !strings.HasPrefix(got, "10.0.0.1") || hosts != ""):
				t.Errorf("%s without names: %s=%q %s=%q, want node 0's address and no hosts", c.runtime, c.name, got, contract.HostsVar, hosts)
			}
		}
	}
}

// TestPlainPolicy: a runtime whose mlPolicy names no framework
// (plainml.go EnforceMLPolicy @v2.3.0) gives the trainer numNodes pods
// and trainer.env, and nothing else: no contract, no variable of the
// oracle's.
func TestPlainPolicy(t *testing.T) {
	src := `apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: plain
spec:
  runtimeRef:
    name: plain-rt
    kind: TrainingRuntime
  trainer:
    numNodes: 3
    env:
      - name: EPOCHS
        value: "2"
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: plain-rt
spec:
  mlPolicy:
    numNodes: 1
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
                      command: [sh, -c, "echo $EPOCHS"]
`
	job, diags := trainer.Read([]byte(src), jobs.ReadOptions{Path: "job.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r := job.Role("node")
	if r == nil || r.Instances != 3 || len(r.Env) != 1 || r.Env[0].Name != "EPOCHS" || r.Env[0].Value != "2" {
		t.Fatalf("role node %+v, want 3 instances with EPOCHS=2", r)
	}
	if len(job.Contracts) != 0 {
		t.Errorf("contracts %v, want none", job.Contracts)
	}
	for i := range 3 {
		env, err := contract.Eval(job, contract.SampleTopology(job), jobs.TaskRef{Role: "node", Index: i}, contract.Options{})
		if err != nil || len(env) != 0 {
			t.Errorf("node-%d: oracle %v, %v; want nothing", i, env, err)
		}
	}
}
