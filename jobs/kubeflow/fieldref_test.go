package kubeflow

import (
	"slices"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

func fieldRefJob(path string) string {
	return `apiVersion: kubeflow.org/v1
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
                - name: X
                  valueFrom:
                    fieldRef:
                      fieldPath: ` + path + "\n"
}

// TestFieldRef: the per-task fields are kept with their path; the others
// are refused at the fieldPath (file:line:col), unknown ones as errors even
// under -lossy.
func TestFieldRef(t *testing.T) {
	for _, path := range []string{"metadata.name", "status.podIP", "status.podIPs", "spec.nodeName", "status.hostIP", "status.hostIPs"} {
		j, diags := Read([]byte(fieldRefJob(path)), jobs.ReadOptions{Path: "pt.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", path, diags)
		}
		if got := j.Roles[0].Env; len(got) != 1 || got[0].Name != "X" || got[0].FieldPath != path || got[0].Value != "" {
			t.Errorf("%s: env %+v", path, got)
		}
	}
	for _, tc := range []struct {
		path, want string
		lossyOK    bool
	}{
		{"metadata.uid", "Variable from the pod dropped; The env variable X takes metadata.uid", true},
		{"spec.serviceAccountName", "Variable from the pod dropped; The env variable X takes spec.serviceAccountName", true},
		{"metadata.labels['a']", `Variable from the pod dropped; The env variable X takes the label "a", which the pod template does not set`, true},
		{"metadata.annotations['a']", `Variable from the pod dropped; The env variable X takes the annotation "a", which the pod template does not set`, true},
		{"status.phase", `Unknown fieldPath; The env variable X takes "status.phase" from the pod, which is not a downward-API field`, false},
	} {
		_, diags := Read([]byte(fieldRefJob(tc.path)), jobs.ReadOptions{Path: "pt.yaml"})
		if !strings.Contains(diags.Error(), tc.want) || !diags.HasErrors() {
			t.Errorf("%s: got %v, want %s", tc.path, diags, tc.want)
		}
		if got := diags[0].Subject; got == nil || got.Start.Line != 17 || got.Start.Column != 34 {
			t.Errorf("%s: at %v, want 17:34", tc.path, got)
		}
		_, diags = Read([]byte(fieldRefJob(tc.path)), jobs.ReadOptions{Path: "pt.yaml", Lossy: true})
		if diags.HasErrors() == tc.lossyOK {
			t.Errorf("%s under -lossy: %v", tc.path, diags)
		}
	}
}

// TestFieldRefReference: $(NAME) of a fieldRef variable in args or a later
// env value cannot be expanded before the task starts; it is refused at
// the args / value, not left literal.
func TestFieldRefReference(t *testing.T) {
	src := fieldRefJob("metadata.name") + `                - name: Y
                  value: "at-$(X)"
              args: ["--name=$(X)"]
`
	_, diags := Read([]byte(src), jobs.ReadOptions{Path: "pt.yaml"})
	var lines []int
	for _, d := range diags {
		if d.Summary == "Reference to a pod field" {
			lines = append(lines, d.Subject.Start.Line)
		}
	}
	if len(lines) != 2 || lines[0] != 19 || lines[1] != 20 {
		t.Errorf("references refused at lines %v, want [19 20]: %v", lines, diags)
	}
}

// TestFieldRefStatic: the fields every task shares become values: the
// job's namespace ("default" when the file names none: its pods are made
// in it), a label or annotation the pod template sets
// (pkg/fieldpath/fieldpath.go ExtractFieldPathAsString @v1.31.0), also in
// an init container; a key the operator sets on each pod itself
// (training.kubeflow.org/replica-index) is refused at the fieldPath.
func TestFieldRefStatic(t *testing.T) {
	job := func(ns, path string) string {
		return `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt` + ns + `}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        metadata:
          labels: {team: vision, training.kubeflow.org/replica-index: "7"}
          annotations: {owner: "ann@example.com"}
        spec:
          initContainers:
            - name: init
              image: busybox
              command: [sh, -c, "echo $X"]
              env:
                - {name: X, valueFrom: {fieldRef: {fieldPath: "` + path + `"}}}
          containers:
            - name: pytorch
              image: busybox
              env:
                - {name: X, valueFrom: {fieldRef: {fieldPath: "` + path + `"}}}
`
	}
	for _, tc := range []struct{ ns, path, want string }{
		{"", "metadata.namespace", "default"},
		{", namespace: research", "metadata.namespace", "research"},
		{"", "metadata.labels['team']", "vision"},
		{"", "metadata.annotations['owner']", "ann@example.com"},
	} {
		j, diags := Read([]byte(job(tc.ns, tc.path)), jobs.ReadOptions{Path: "pt.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.path, diags)
		}
		r := j.Roles[0]
		if got := r.Env; len(got) != 1 || got[0].Value != tc.want || got[0].FieldPath != "" {
			t.Errorf("%s: env %+v, want X=%s", tc.path, got, tc.want)
		}
		if len(r.Init) != 1 || len(r.Init[0].Env) != 1 || r.Init[0].Env[0].Value != tc.want {
			t.Errorf("%s: init container %+v, want X=%s", tc.path, r.Init, tc.want)
		}
	}
	_, diags := Read([]byte(job("", "metadata.labels['training.kubeflow.org/replica-index']")), jobs.ReadOptions{Path: "pt.yaml"})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "which the platform sets on each pod itself") {
		t.Errorf("operator label: %v", diags)
	}
	var lines []int
	for _, d := range diags {
		if d.Summary == "Variable from the pod dropped" {
			lines = append(lines, d.Subject.Start.Line)
		}
	}
	if slices.Sort(lines); !slices.Equal(lines, []int{18, 23}) {
		t.Errorf("operator label refused at lines %v, want 18 and 23: %v", lines, diags)
	}
}
