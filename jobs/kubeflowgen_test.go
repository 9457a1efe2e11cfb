package jobs

import "testing"

// TestKubeflowGen: apiVersion → operator generation (spec/kubeflow.md §0
// table; PyTorchJob: kubeflow/pytorch-operator tags).
func TestKubeflowGen(t *testing.T) {
	cases := map[string]struct {
		format  Format
		version string
		want    KubeflowGen
	}{
		"tf kubeflow.org/v1alpha1 (tf-operator v0.1 pkg/trainer)": {FormatTFJob, "kubeflow.org/v1alpha1", KubeflowGenV1Alpha1},
		"tf mlkube.io/v1beta1 (2017 TfJob)":                       {FormatTFJob, "mlkube.io/v1beta1", KubeflowGenV1Alpha1},
		"tf tensorflow.org/v1alpha1 (2017 TfJob)":                 {FormatTFJob, "tensorflow.org/v1alpha1", KubeflowGenV1Alpha1},
		"tf v1alpha2 (v0.2-v0.3 controller.v2)":                   {FormatTFJob, "kubeflow.org/v1alpha2", KubeflowGenPreV1},
		"tf v1beta1 (v0.4 controller.v1beta1)":                    {FormatTFJob, "kubeflow.org/v1beta1", KubeflowGenPreV1},
		"tf v1beta2 (v0.4-v1.0.0-rc.0 controller.v1beta2)":        {FormatTFJob, "kubeflow.org/v1beta2", KubeflowGenPreV1},
		"tf v1 (read as v1.9)":                                    {FormatTFJob, "kubeflow.org/v1", KubeflowGenV1},
		"tf unknown apiVersion (read as v1.9)":                    {FormatTFJob, "kubeflow.org/v2", KubeflowGenV1},
		"tf caicloud (no Kubeflow generation; current rules)":     {FormatTFJob, "kubeflow.caicloud.io/v1alpha1", KubeflowGenV1},
		"pytorch v1alpha1 (pytorch-operator before PR #110)":      {FormatPyTorchJob, "kubeflow.org/v1alpha1", KubeflowGenV1Alpha1},
		"pytorch v1beta2 (pytorch-operator controller.v1beta2)":   {FormatPyTorchJob, "kubeflow.org/v1beta2", KubeflowGenPreV1},
		"pytorch v1":                {FormatPyTorchJob, "kubeflow.org/v1", KubeflowGenV1},
		"pai v2 is no Kubeflow job": {FormatPAIv2, "v2", KubeflowGenNone},
		"mpijob is not covered":     {FormatMPIJob, "kubeflow.org/v1alpha1", KubeflowGenNone},
	}
	for name, c := range cases {
		j := &Job{Source: Source{Format: c.format, Version: c.version}}
		if got := j.KubeflowGen(); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
