package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// TestKubeflowGenerations: the variables each operator generation gave,
// chosen by apiVersion. Expected values are written from the upstream
// sources named in each case (kubeflow/training-operator tags, formerly
// tf-operator; kubeflow/pytorch-operator), with task addresses in place of
// the k8s service names.
func TestKubeflowGenerations(t *testing.T) {
	tfPort := []jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true, Number: 2222}}
	ptPort := []jobs.Port{{Label: "pytorchjob-port", Count: 1, Implicit: true, Number: 23456}}
	tfJob := func(api string, roles ...*jobs.Role) *jobs.Job {
		return &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatTFJob, Version: api}, Contracts: []string{jobs.ContractTF}, Roles: roles}
	}
	ptJob := func(api string, roles ...*jobs.Role) *jobs.Job {
		return &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPyTorchJob, Version: api}, Contracts: []string{jobs.ContractTorch}, Roles: roles}
	}
	role := func(typ string, n int, ports []jobs.Port) *jobs.Role {
		return &jobs.Role{Name: typ, ReplicaType: typ, Instances: n, Ports: ports}
	}
	addrs := map[string][]string{"master": {"10.0.0.1"}, "chief": {"10.0.1.1"}, "ps": {"10.0.2.1"}, "worker": {"10.0.3.1", "10.0.3.2"}, "evaluator": {"10.0.4.1"}}
	topoOf := func(j *jobs.Job) Topology {
		var topo Topology
		for _, r := range j.Roles {
			rt := RoleTopology{Name: r.Name}
			for i := range r.Instances {
				rt.Tasks = append(rt.Tasks, task(addrs[r.Name][i], map[string][]int{r.Ports[0].Label: {r.Ports[0].Number}}))
			}
			topo.Roles = append(topo.Roles, rt)
		}
		return topo
	}
	loneWorkerTF := `{"cluster":{"worker":["10.0.3.1:2222"]},"task":{"type":"worker","index":0},"environment":"cloud"}`
	noEvalCluster := `{"cluster":{"chief":["10.0.1.1:2222"],"worker":["10.0.3.1:2222"]}`
	withEvalCluster := `{"cluster":{"chief":["10.0.1.1:2222"],"evaluator":["10.0.4.1:2222"],"worker":["10.0.3.1:2222"]}`
	evalRoles := func() []*jobs.Role {
		return []*jobs.Role{role("chief", 1, tfPort), role("worker", 1, tfPort), role("evaluator", 1, tfPort)}
	}
	cases := map[string]struct {
		source string // upstream file the expectation is written from
		job    *jobs.Job
		task   jobs.TaskRef
		want   Env
	}{
		"tf v1 lone worker: no TF_CONFIG": {
			source: "training-operator v1.0.1-rc.0 pkg/controller.v1/tensorflow/util.go isDistributed (PR #1080); v1.9.0 pkg/controller.v1/tensorflow/tensorflow.go",
			job:    tfJob("kubeflow.org/v1", role("worker", 1, tfPort)), task: jobs.TaskRef{Role: "worker"},
			want: Env{},
		},
		"tf v1beta2 lone worker: TF_CONFIG": {
			source: "tf-operator v0.5.3 pkg/controller.v1beta2/tensorflow/pod.go setClusterSpec (no isDistributed)",
			job:    tfJob("kubeflow.org/v1beta2", role("worker", 1, tfPort)), task: jobs.TaskRef{Role: "worker"},
			want: Env{{"TF_CONFIG", loneWorkerTF}},
		},
		"tf v1alpha2 lone worker: TF_CONFIG": {
			source: "tf-operator v0.3.0 pkg/controller.v2/tensorflow/pod.go setClusterSpec",
			job:    tfJob("kubeflow.org/v1alpha2", role("worker", 1, tfPort)), task: jobs.TaskRef{Role: "worker"},
			want: Env{{"TF_CONFIG", loneWorkerTF}},
		},
		"tf v1beta1 lone worker: TF_CONFIG": {
			source: "tf-operator v0.4.0 pkg/controller.v1beta1/tensorflow/pod.go setClusterSpec",
			job:    tfJob("kubeflow.org/v1beta1", role("worker", 1, tfPort)), task: jobs.TaskRef{Role: "worker"},
			want: Env{{"TF_CONFIG", loneWorkerTF}},
		},
		"tf v1alpha1 lone master: TF_CONFIG": {
			source: "tf-operator v0.1.0 pkg/trainer/replicas.go CreatePodWithIndex (always sets TF_CONFIG)",
			job:    tfJob("kubeflow.org/v1alpha1", role("master", 1, tfPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"TF_CONFIG", `{"cluster":{"master":["10.0.0.1:2222"]},"task":{"type":"master","index":0},"environment":"cloud"}`}},
		},
		"tf 2017 TfJob lone master: TF_CONFIG": {
			source: "tf-operator v0.1.0 pkg/trainer/replicas.go (mlkube.io/v1beta1 is its predecessor)",
			job:    tfJob("mlkube.io/v1beta1", role("master", 1, tfPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"TF_CONFIG", `{"cluster":{"master":["10.0.0.1:2222"]},"task":{"type":"master","index":0},"environment":"cloud"}`}},
		},
		"tf v1 evaluator listed": {
			source: "training-operator commit c18fb32ff (PR #1146, v1.0.1) genClusterSpec; v1.9.0 tensorflow.go",
			job:    tfJob("kubeflow.org/v1", evalRoles()...), task: jobs.TaskRef{Role: "worker"},
			want: Env{{"TF_CONFIG", withEvalCluster + `,"task":{"type":"worker","index":0},"environment":"cloud"}`}},
		},
		"tf v1beta2 evaluator not listed (worker)": {
			source: "tf-operator v0.5.3 pkg/controller.v1beta2/tensorflow/tensorflow.go genClusterSpec (rtype == TFReplicaTypeEval: continue)",
			job:    tfJob("kubeflow.org/v1beta2", evalRoles()...), task: jobs.TaskRef{Role: "worker"},
			want: Env{{"TF_CONFIG", noEvalCluster + `,"task":{"type":"worker","index":0},"environment":"cloud"}`}},
		},
		"tf v1alpha2 evaluator not listed (evaluator itself)": {
			source: "tf-operator v0.3.0 pkg/controller.v2/tensorflow/tensorflow.go genClusterSpec (PR #650)",
			job:    tfJob("kubeflow.org/v1alpha2", evalRoles()...), task: jobs.TaskRef{Role: "evaluator"},
			want: Env{{"TF_CONFIG", noEvalCluster + `,"task":{"type":"evaluator","index":0},"environment":"cloud"}`}},
		},
		"pytorch v1 master: service name on the master too": {
			source: "training-operator v1.4.0 (PR #1453) / v1.9.0 pkg/controller.v1/pytorch/master.go, envvar.go",
			job:    ptJob("kubeflow.org/v1", role("master", 1, ptPort), role("worker", 1, ptPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"PYTHONUNBUFFERED", "1"}, {"MASTER_PORT", "23456"}, {"PET_MASTER_PORT", "23456"}, {"MASTER_ADDR", "10.0.0.1"}, {"PET_MASTER_ADDR", "10.0.0.1"},
				{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"PET_NODE_RANK", "0"}, {"PET_NPROC_PER_NODE", "auto"}, {"PET_NNODES", "2"}},
		},
		"pytorch v1beta2 master: localhost": {
			source: "pytorch-operator v1.0.0-rc.1 pkg/controller.v1beta2/pytorch/pod.go setClusterSpec",
			job:    ptJob("kubeflow.org/v1beta2", role("master", 1, ptPort), role("worker", 1, ptPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"MASTER_PORT", "23456"}, {"MASTER_ADDR", "localhost"}, {"WORLD_SIZE", "2"}, {"RANK", "0"}, {"PYTHONUNBUFFERED", "0"}},
		},
		"pytorch v1beta1 worker: master's address, rank index+1": {
			source: "pytorch-operator v0.4.0 pkg/controller.v1beta1/pytorch/pod.go setClusterSpec",
			job:    ptJob("kubeflow.org/v1beta1", role("master", 1, ptPort), role("worker", 2, ptPort)), task: jobs.TaskRef{Role: "worker", Index: 1},
			want: Env{{"MASTER_PORT", "23456"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}, {"PYTHONUNBUFFERED", "0"}},
		},
		"pytorch v1alpha2 master: localhost": {
			source: "pytorch-operator v0.3.0 pkg/controller.v2/pytorch/pod.go setClusterSpec",
			job:    ptJob("kubeflow.org/v1alpha2", role("master", 1, ptPort), role("worker", 1, ptPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"MASTER_PORT", "23456"}, {"MASTER_ADDR", "localhost"}, {"WORLD_SIZE", "2"}, {"RANK", "0"}, {"PYTHONUNBUFFERED", "0"}},
		},
		"pytorch v1alpha1 master: TF_CONFIG, localhost": {
			source: "pytorch-operator 8d71ff3b (parent of PR #110) pkg/trainer/replicas.go CreatePodWithIndex, training.go ClusterSpec",
			job:    ptJob("kubeflow.org/v1alpha1", role("master", 1, ptPort), role("worker", 2, ptPort)), task: jobs.TaskRef{Role: "master"},
			want: Env{{"TF_CONFIG", `{"cluster":{"master":["10.0.0.1:23456"],"worker":["10.0.3.1:23456","10.0.3.2:23456"]},"task":{"type":"master","index":0},"environment":"cloud"}`},
				{"MASTER_PORT", "23456"}, {"MASTER_ADDR", "localhost"}, {"WORLD_SIZE", "3"}, {"RANK", "0"}, {"PYTHONUNBUFFERED", "0"}},
		},
		"pytorch v1alpha1 worker: TF_CONFIG index is the rank": {
			source: "pytorch-operator 8d71ff3b pkg/trainer/replicas.go SyncPods (rank = index + 1 for WORKER) and CreatePodWithIndex",
			job:    ptJob("kubeflow.org/v1alpha1", role("master", 1, ptPort), role("worker", 2, ptPort)), task: jobs.TaskRef{Role: "worker", Index: 1},
			want: Env{{"TF_CONFIG", `{"cluster":{"master":["10.0.0.1:23456"],"worker":["10.0.3.1:23456","10.0.3.2:23456"]},"task":{"type":"worker","index":2},"environment":"cloud"}`},
				{"MASTER_PORT", "23456"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}, {"PYTHONUNBUFFERED", "0"}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Eval(c.job, topoOf(c.job), c.task, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("from %s (-want +got):\n%s", c.source, d)
			}
		})
	}
}
