package nomad

import (
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// TestPolicyKeepsGeneration: the controller judges a job from its meta
// policy alone, so the apiVersion must survive the round trip or an old
// TFJob would be judged by v1.9's rules (translate/completion chiefRules,
// retryableExitCode).
func TestPolicyKeepsGeneration(t *testing.T) {
	for _, api := range []string{"kubeflow.org/v1alpha1", "kubeflow.org/v1beta2", "kubeflow.org/v1"} {
		j := &jobs.Job{Name: "t", Source: jobs.Source{Format: jobs.FormatTFJob, Version: api},
			Roles: []*jobs.Role{{Name: "master", ReplicaType: "master", Instances: 1}}}
		got := PolicyOf(j).Job()
		if got.Source.Version != api || got.KubeflowGen() != j.KubeflowGen() {
			t.Errorf("%s: round trip gives version %q (generation %q), want %q", api, got.Source.Version, got.KubeflowGen(), j.KubeflowGen())
		}
	}
}
