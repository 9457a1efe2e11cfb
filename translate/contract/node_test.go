package contract_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/translate/contract"
)

// TestFieldRefNode: spec.nodeName is the name of the node the task runs
// on, status.hostIP that node's address and status.hostIPs the same one
// address (the kubelet's podFieldSelectorRuntimeValue,
// pkg/kubelet/kubelet_pods.go @v1.31.0: pod.Spec.NodeName, hostIPs[0],
// hostIPs comma-joined; jobshift's nodes are single-stack). The oracle
// and the shell rendering give each task its own node's; a topology
// without them is refused, and so is the shell input.
func TestFieldRefNode(t *testing.T) {
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
              env:
                - name: MY_NODE
                  valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
                - name: MY_HOST_IP
                  valueFrom: {fieldRef: {fieldPath: status.hostIP}}
                - name: MY_HOST_IPS
                  valueFrom: {fieldRef: {fieldPath: status.hostIPs}}
`
	j, diags := kubeflow.Read([]byte(src), jobs.ReadOptions{Path: "pt.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !contract.UsesNode(j) {
		t.Fatal("UsesNode = false")
	}
	ports := map[string][]int{"pytorchjob-port": {23456}}
	topo := contract.Topology{Roles: []contract.RoleTopology{{Name: j.Roles[0].Name, Tasks: []contract.TaskTopology{
		{Addr: "10.1.0.1", Ports: ports, Node: "gpu-a", NodeAddr: "192.168.1.10"},
		{Addr: "10.1.0.2", Ports: ports, Node: "gpu-b", NodeAddr: "192.168.1.11"},
	}}}}
	want := map[string]string{"MY_NODE": "gpu-b", "MY_HOST_IP": "192.168.1.11", "MY_HOST_IPS": "192.168.1.11"}
	env, err := contract.Eval(j, topo, jobs.TaskRef{Role: j.Roles[0].Name, Index: 1}, contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := env.Map()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("oracle: %s = %q, want %q", k, got[k], v)
		}
	}
	script, err := contract.Shell(j, contract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shEnv, stderr, err := runShell(t, "sh", script, shellInput(j, topo, contract.Options{}, 0, 1, ""))
	if err != nil {
		t.Fatalf("shell: %v: %s", err, stderr)
	}
	for k, v := range want {
		if shEnv[k] != v {
			t.Errorf("shell: %s = %q, want %q", k, shEnv[k], v)
		}
	}
	for _, v := range []string{"JS_R0_NODE_0", "JS_R0_HOSTIP_1"} {
		if _, ok := shEnv[v]; ok {
			t.Errorf("shell: the input %s reached the command", v)
		}
	}

	bad := topo
	bad.Roles = []contract.RoleTopology{{Name: topo.Roles[0].Name, Tasks: []contract.TaskTopology{topo.Roles[0].Tasks[0], {Addr: "10.1.0.2", Ports: ports}}}}
	if _, err := contract.Eval(j, bad, jobs.TaskRef{Role: j.Roles[0].Name, Index: 0}, contract.Options{}); !errors.Is(err, contract.ErrTopology) {
		t.Errorf("a task without its node: %v, want ErrTopology", err)
	}
	_, stderr, err = runShell(t, "sh", script, shellInput(j, bad, contract.Options{}, 0, 0, ""))
	if err == nil || !strings.Contains(stderr, "JS_R0_NODE_1: not a node name or address") {
		t.Errorf("shell with a task without its node: %v, %q", err, stderr)
	}
	// values the fragment carries unquoted: anything but an address is
	// refused before it is written
	for _, v := range []string{"JS_R0_NODE_0=$(touch pwned)", "JS_R0_HOSTIP_1=1.2.3.4'"} {
		_, stderr, err = runShell(t, "sh", script, append(shellInput(j, topo, contract.Options{}, 0, 0, ""), v))
		name, _, _ := strings.Cut(v, "=")
		if err == nil || !strings.Contains(stderr, name+": not a node name or address") {
			t.Errorf("shell with %s: %v, %q", v, err, stderr)
		}
	}
}
