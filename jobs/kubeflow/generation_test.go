package kubeflow

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// TestAdmissionByGeneration: what each generation's admission refused is
// an error (-lossy: a warning); what it admitted is at most a warning. The
// expected severities are written from the upstream validation named per
// case.
func TestAdmissionByGeneration(t *testing.T) {
	tf := func(api, name, container string) string {
		return fmt.Sprintf(`apiVersion: %s
kind: TFJob
metadata:
  name: %s
spec:
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: %s
            image: tensorflow/tensorflow:2.15.0
            command: [python, train.py]
`, api, name, container)
	}
	pt := func(api, name, container string) string {
		return fmt.Sprintf(`apiVersion: %s
kind: PyTorchJob
metadata:
  name: %s
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - name: %s
            image: pytorch/pytorch:2.1.0
            command: [python, train.py]
`, api, name, container)
	}
	type diag struct {
		Severity hcl.DiagnosticSeverity
		Summary  string
		Line     int
	}
	cases := map[string]struct {
		source string
		src    string
		lossy  bool
		want   []diag
	}{
		"v1 name not DNS-1035: error": {
			source: "training-operator v1.6.0 pkg/apis/kubeflow.org/v1/tensorflow_validation.go ValidateV1TFJob; v1.9.0 pkg/webhooks/tensorflow/tfjob_webhook.go",
			src:    tf("kubeflow.org/v1", "1st-job", "tensorflow"),
			want:   []diag{{hcl.DiagError, "Job name is not a DNS label", 4}},
		},
		"v1 name not DNS-1035, -lossy: warning": {
			source: "as above, downgraded by -lossy",
			src:    tf("kubeflow.org/v1", "my.job", "tensorflow"), lossy: true,
			want: []diag{{hcl.DiagWarning, "Job name is not a DNS label", 4}},
		},
		"pytorch v1 name not DNS-1035: error": {
			source: "training-operator v1.9.0 pkg/webhooks/pytorch/pytorchjob_webhook.go validatePyTorchJob",
			src:    pt("kubeflow.org/v1", "1st-job", "pytorch"),
			want:   []diag{{hcl.DiagError, "Job name is not a DNS label", 4}},
		},
		"v1beta2 name not DNS-1035: admitted, warning": {
			source: "tf-operator v0.5.3 pkg/apis/tensorflow/validation/validation.go ValidateBetaTwoTFJobSpec (no name check)",
			src:    tf("kubeflow.org/v1beta2", "1st-job", "tensorflow"),
			want:   []diag{{hcl.DiagWarning, "Job name is not a DNS label", 4}},
		},
		"v1 no container named tensorflow: error": {
			source: "training-operator v1.9.0 pkg/webhooks/tensorflow/tfjob_webhook.go validateTFReplicaSpecs",
			src:    tf("kubeflow.org/v1", "mnist", "main"),
			want:   []diag{{hcl.DiagError, "No container named tensorflow", 12}},
		},
		"v1alpha2 no container named tensorflow: error": {
			source: "tf-operator v0.3.0 pkg/apis/tensorflow/validation/validation.go ValidateAlphaTwoTFJobSpec (\"TFJobSpec is not valid\")",
			src:    tf("kubeflow.org/v1alpha2", "mnist", "main"),
			want:   []diag{{hcl.DiagError, "No container named tensorflow", 12}},
		},
		"v1 no container named tensorflow, -lossy: warning": {
			source: "as above, downgraded by -lossy",
			src:    tf("kubeflow.org/v1", "mnist", "main"), lossy: true,
			want: []diag{{hcl.DiagWarning, "No container named tensorflow", 12}},
		},
		"pytorch v1beta1 no container named pytorch: error": {
			source: "pytorch-operator v0.4.0 pkg/apis/pytorch/validation/validation.go ValidateBetaOnePyTorchJobSpec",
			src:    pt("kubeflow.org/v1beta1", "mnist", "main"),
			want:   []diag{{hcl.DiagError, "No container named pytorch", 12}},
		},
		"v1 valid: no diagnostics": {
			source: "the same job with a DNS-1035 name and a tensorflow container",
			src:    tf("kubeflow.org/v1", "mnist", "tensorflow"),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := Read([]byte(c.src), jobs.ReadOptions{Path: "job.yaml", Lossy: c.lossy})
			var got []diag
			for _, d := range diags {
				got = append(got, diag{d.Severity, d.Summary, d.Subject.Start.Line})
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("from %s (-want +got):\n%s", c.source, d)
			}
		})
	}
}

// TestPreV1FieldsIgnored: successPolicy and enableDynamicWorker arrived in
// v1.0.1 (pkg/apis/tensorflow/v1/types.go @v1.0.1-rc.0); a v1beta2 job
// does not get them.
func TestPreV1FieldsIgnored(t *testing.T) {
	src := `apiVersion: kubeflow.org/%s
kind: TFJob
metadata:
  name: mnist
spec:
  successPolicy: AllWorkers
  enableDynamicWorker: true
  tfReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.15.0
`
	for v, want := range map[string]jobs.Completion{
		"v1beta2": {Kind: jobs.CompletionTF},
		"v1":      {Kind: jobs.CompletionTF, SuccessPolicy: "AllWorkers", EnableDynamicWorker: true},
	} {
		job, diags := Read([]byte(fmt.Sprintf(src, v)), jobs.ReadOptions{Path: "job.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", v, diags.Error())
		}
		got := job.Completion
		got.Pos = jobs.Pos{}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", v, d)
		}
		if v == "v1beta2" && len(diags) != 2 {
			t.Errorf("v1beta2: want 2 warnings (successPolicy, enableDynamicWorker ignored), got %s", diags.Error())
		}
	}
}

// TestLimitsByGeneration: activeDeadlineSeconds and backoffLimit exist from
// v1beta2 (tf-operator v0.5.0 pkg/apis/tensorflow/v1beta2/types.go; absent
// from v1alpha2/types.go @v0.3.0 and v1beta1/types.go @v0.4.0).
func TestLimitsByGeneration(t *testing.T) {
	src := `apiVersion: kubeflow.org/%s
kind: TFJob
metadata:
  name: mnist
spec:
  activeDeadlineSeconds: 60
  backoffLimit: 2
  tfReplicaSpecs:
    Worker:
      template:
        spec:
          containers:
          - name: tensorflow
            image: tensorflow/tensorflow:2.15.0
`
	for v, want := range map[string]bool{"v1alpha2": false, "v1beta1": false, "v1beta2": true, "v1": true} {
		job, diags := Read([]byte(fmt.Sprintf(src, v)), jobs.ReadOptions{Path: "job.yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", v, diags.Error())
		}
		got := job.Retry.BackoffLimit != nil && job.Retry.ActiveDeadlineSeconds != nil
		if got != want || !want && len(diags) != 2 {
			t.Errorf("%s: limits kept = %v, want %v; diagnostics: %s", v, got, want, diags.Error())
		}
	}
}
