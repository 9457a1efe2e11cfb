package kubeflow

import (
	"strconv"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// `<<` merge keys expand through the shared YAML layer (Kubernetes'
// parser expands them; the reader warned "Unknown field <<" and lost the
// merged fields), explicit keys winning; a duplicate key keeps the last
// value with a warning naming the first line.
func TestMergeKeysAndDuplicates(t *testing.T) {
	src := []byte(`apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: merged
spec:
  tfReplicaSpecs:
    Worker: &w
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: tensorflow
            image: tf:1
            command: [python, train.py]
    PS:
      <<: *w
      replicas: 1
      restartPolicy: Never
      restartPolicy: OnFailure
`)
	job, diags := Read(src, jobs.ReadOptions{Path: "m.yaml"})
	if diags.HasErrors() || job == nil {
		t.Fatalf("diags: %v", diags)
	}
	var warnings []string
	for _, d := range diags {
		warnings = append(warnings, d.Summary+"@"+strconv.Itoa(d.Subject.Start.Line))
	}
	if len(warnings) != 1 || warnings[0] != "Duplicate key@20" {
		t.Errorf("diagnostics %v, want only the duplicate restartPolicy at line 20", warnings)
	}
	ps := job.Role("ps")
	if ps == nil || ps.Instances != 1 || ps.Image != "tf:1" || ps.RestartPolicy != "OnFailure" {
		t.Fatalf("ps = %+v, want 1 instance of tf:1 (merged template), restartPolicy OnFailure (last wins)", ps)
	}
}
