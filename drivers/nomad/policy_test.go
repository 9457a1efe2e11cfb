package nomad

import (
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
		b, err := policyMeta(want)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ParsePolicy(map[string]string{MetaPolicy: b})
		if !ok {
			t.Fatalf("%s: meta %s does not parse", api, b)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", api, diff)
		}
		if got.Generation() != j.KubeflowGen() {
			t.Errorf("%s: generation %q, want %q", api, got.Generation(), j.KubeflowGen())
		}
	}
}

// TestPolicyOfEarlierJobs: a job registered before the policy was stored
// as completion.Policy (each role with its group, the kind only inside
// completion: the uai golden's meta of that time) is judged by the same
// policy.
func TestPolicyOfEarlierJobs(t *testing.T) {
	old := `{"name":"uai","format":"pai-v2","completion":{"kind":"pai","pos":{}},"retry":{"jobRetryCount":0,"gangAllocation":false,"pos":{}},"roles":[{"name":"train","group":"train","instances":3,"minFailed":null,"minSucceeded":null}]}`
	got, ok := ParsePolicy(map[string]string{MetaPolicy: old})
	if !ok {
		t.Fatal("does not parse")
	}
	want := completion.Policy{Name: "uai", Kind: jobs.CompletionPAI, Format: jobs.FormatPAIv2,
		Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles:      []completion.PolicyRole{{Name: "train", Instances: 3}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
