package contract

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
)

const fieldRefEnv = `              env:
                - name: POD_NAME
                  valueFrom: {fieldRef: {fieldPath: metadata.name}}
                - name: POD_IP
                  valueFrom: {fieldRef: {fieldPath: status.podIP}}
                - name: RANK
                  valueFrom: {fieldRef: {fieldPath: metadata.name}}
`

// TestFieldRefVolcano: a Volcano task's pod is <job>-<task>-<i>
// (MakePodName @v1.16.0-alpha.1) and its pod IP the task's address; a
// plugin's variable of the same name (the pytorch plugin's RANK) wins, as
// the plugin's env comes after the user's.
func TestFieldRefVolcano(t *testing.T) {
	task := func(name string, n int) string {
		return "    - name: " + name + "\n      replicas: " + string(rune('0'+n)) + "\n      template:\n        spec:\n          containers:\n            - image: busybox\n" + fieldRefEnv
	}
	j := readVolcano(t, vcHead+"fr\nspec:\n  plugins:\n    pytorch: []\n  tasks:\n"+task("master", 1)+task("worker", 3))
	topo := volcanoTopo(j, 23456)
	topo.Roles[1].Tasks[2].Addr = "10.0.0.7"
	env := mustEval(t, j, topo, "worker", 2, Options{})
	subset(t, env, map[string]string{"POD_NAME": "fr-worker-2", "POD_IP": "10.0.0.7", "RANK": "3"})
	env = mustEval(t, j, topo, "master", 0, Options{})
	subset(t, env, map[string]string{"POD_NAME": "fr-master-0", "POD_IP": "fr-master-0.fr", "RANK": "0"})
}

// TestFieldRefPyTorchJob: a training-operator pod is <job>-<replica type
// in lower case>-<i> (kubeflow/common GenGeneralName), also with no
// contract at all.
func TestFieldRefPyTorchJob(t *testing.T) {
	src := `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: busybox
` + strings.ReplaceAll(fieldRefEnv, "  - name: RANK", "  - name: OTHER")
	j, diags := kubeflow.Read([]byte(src), jobs.ReadOptions{Path: "pt.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ports := map[string][]int{"pytorchjob-port": {23456}}
	topo := Topology{Roles: []RoleTopology{{Name: j.Roles[0].Name, Tasks: []TaskTopology{task("10.1.0.1", ports), task("10.1.0.2", ports)}}}}
	for _, opts := range []Options{{}, {Contracts: []string{}, Exact: true}} {
		env := mustEval(t, j, topo, j.Roles[0].Name, 1, opts)
		subset(t, env, map[string]string{"POD_NAME": "pt-worker-1", "POD_IP": "10.1.0.2", "OTHER": "pt-worker-1"})
	}
}
