package kubeflow

import (
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
	for _, path := range []string{"metadata.name", "status.podIP", "status.podIPs"} {
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
		{"status.hostIP", "Variable from the pod dropped; The env variable X takes status.hostIP", true},
		{"metadata.labels['a']", "Variable from the pod dropped; The env variable X takes metadata.labels['a']", true},
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
