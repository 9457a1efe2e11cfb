package nomad

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestPolicyKeepsGeneration: the controller judges a job from its meta
// policy alone, so the apiVersion must survive the round trip or an old
// TFJob would be judged by v1.9's rules (translate/completion chiefRules,
// retryableExitCode); so must everything else of the completion.Policy.
func TestPolicyKeepsGeneration(t *testing.T) {
	for _, api := range []string{"kubeflow.org/v1alpha1", "kubeflow.org/v1beta2", "kubeflow.org/v1"} {
		j := &jobs.Job{Name: "t", Source: jobs.Source{Format: jobs.FormatTFJob, Version: api},
			Completion: jobs.Completion{Kind: jobs.CompletionTF},
			Roles:      []*jobs.Role{{Name: "master", ReplicaType: "master", Instances: 1, MinFailed: new(1)}},
			Extras:     jobs.Extras{ElasticPolicy: map[string]any{"x": 1}}}
		want := completion.PolicyOf(j)
		b, err := json.Marshal(metaPolicy(want))
		if err != nil {
			t.Fatal(err)
		}
		meta, ok := ParsePolicy(map[string]string{MetaPolicy: string(b)})
		if !ok {
			t.Fatalf("%s: meta %s does not parse", api, b)
		}
		got := meta.Rules()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", api, diff)
		}
		if got.Generation() != j.KubeflowGen() {
			t.Errorf("%s: generation %q, want %q", api, got.Generation(), j.KubeflowGen())
		}
	}
}
