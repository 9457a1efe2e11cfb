package load

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// TestForeignTrainingJobs: a Ray or Spark job gets a located error that
// calls it a training job jobshift cannot run and names what it reads.
func TestForeignTrainingJobs(t *testing.T) {
	for name, src := range map[string]string{
		"RayJob":           "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  name: r\n",
		"SparkApplication": "apiVersion: sparkoperator.k8s.io/v1beta2\nkind: SparkApplication\nmetadata:\n  name: s\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, diags := Read([]byte(src), jobs.ReadOptions{Path: "f.yaml"})
			if len(diags) != 1 || diags[0].Summary != "Training job jobshift cannot run" || diags[0].Subject.Start.Line != 2 ||
				!strings.Contains(diags[0].Detail, "XGBoostJob, PaddleJob, JAXJob and MXJob") {
				t.Errorf("%v", diags)
			}
		})
	}
	_, diags := Read([]byte("apiVersion: kubeflow.org/v1\nkind: XGBoostJob\nmetadata:\n  name: x\nspec: {}\n"), jobs.ReadOptions{Path: "f.yaml"})
	for _, d := range diags {
		if strings.Contains(d.Detail, "is not a job") || strings.Contains(d.Summary, "No Kubeflow job") {
			t.Errorf("an XGBoostJob is called config: %s: %s", d.Summary, d.Detail)
		}
	}
}
