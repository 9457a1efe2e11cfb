package jobs

// KubeflowGen is the Kubeflow operator generation whose rules a TFJob or
// PyTorchJob gets. The apiVersion chooses it, because it is what a file
// says about the operator it was written for (spec/kubeflow.md §0):
// the operators of one generation served only its versions.
type KubeflowGen string

const (
	// KubeflowGenNone: not a TFJob or PyTorchJob (a contract applied to
	// another platform's job uses the current rules).
	KubeflowGenNone KubeflowGen = ""
	// KubeflowGenV1Alpha1: the list-form operators, tf-operator v0.1
	// (pkg/trainer, kubeflow.org/v1alpha1 and its 2017 predecessors
	// mlkube.io/v1beta1, tensorflow.org/v1alpha1) and pytorch-operator
	// before PR #110 (kubeflow.org/v1alpha1 PyTorchJob).
	KubeflowGenV1Alpha1 KubeflowGen = "v1alpha1"
	// KubeflowGenPreV1: the map-form operators before kubeflow/common,
	// v1alpha2, v1beta1 and v1beta2: tf-operator v0.2 … v1.0.0-rc.0,
	// pytorch-operator v0.3 … v1.0.0-rc.1.
	KubeflowGenPreV1 KubeflowGen = "pre-v1"
	// KubeflowGenV1: kubeflow.org/v1, read as training-operator v1.9 (the
	// last v1 release; spec/kubeflow.md §0). Also any apiVersion jobshift
	// does not know.
	KubeflowGenV1 KubeflowGen = "v1"
)

// KubeflowGen is the job's operator generation (KubeflowGenNone for jobs
// that are neither TFJobs nor PyTorchJobs).
func (j *Job) KubeflowGen() KubeflowGen {
	if j == nil || j.Source.Format != FormatTFJob && j.Source.Format != FormatPyTorchJob {
		return KubeflowGenNone
	}
	switch j.Source.Version {
	case "kubeflow.org/v1alpha1", "mlkube.io/v1beta1", "tensorflow.org/v1alpha1":
		return KubeflowGenV1Alpha1
	case "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "kubeflow.org/v1beta2":
		return KubeflowGenPreV1
	}
	return KubeflowGenV1
}
