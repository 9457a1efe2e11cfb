package load

import (
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// Kubeflow Trainer v2 files go to jobs/trainer whatever the document order
// (trainer.kubeflow.org would otherwise match the kubeflow.org groups).
func TestDetectTrainer(t *testing.T) {
	for name, src := range map[string]string{
		"trainjob":             "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n",
		"runtime first":        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\n---\nkind: TrainJob\n",
		"cluster runtime":      "kind: ClusterTrainingRuntime\n",
		"pvc then trainjob":    "apiVersion: v1\nkind: PersistentVolumeClaim\n---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n",
		"unknown trainer kind": "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJobTemplate\n",
	} {
		if d := Detect([]byte(src), "f"); d.Family != FamilyTrainer || d.Format != jobs.FormatTrainJob {
			t.Errorf("%s: %+v", name, d)
		}
	}
	job, diags := Read([]byte("kind: TrainJob\napiVersion: trainer.kubeflow.org/v1alpha1\nmetadata: {name: t}\nspec:\n  runtimeRef: {name: torch-distributed}\n"), jobs.ReadOptions{Path: "f"})
	if diags.HasErrors() || job == nil || job.Source.Format != jobs.FormatTrainJob {
		t.Errorf("Read: %v %v", job, diags)
	}
}
