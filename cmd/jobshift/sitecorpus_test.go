package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/testcorpus"
)

// sitedCorpus are the corpus jobs refused without -lossy because they need
// something besides their command (issue 43): a volume their command uses,
// variables or files from a Secret or ConfigMap not in the file, an init
// container. Each names the -secrets file of examples/secrets it needs.
var sitedCorpus = []struct{ file, secrets string }{
	{"tfjob/aniket-mish-distributed-ml-system__tfjob.yaml", ""},
	{"tfjob/davidfox87-eks-terraform-tfjob-katib-argo__katib-resources-tf-job.yaml", ""},
	{"tfjob/josepholaide-TFJob-on-churn-and-mnist__tfjob.yaml", ""},
	{"tfjob/kubeflow-examples@38b3259d__object_detection-jobs-pets-training.yaml", ""},
	{"tfjob/kubeflow-examples@b6a3c4c0__object_detection-jobs-pets-training.yaml", ""},
	{"tfjob/kubeflow-training-operator__examples-tensorflow-mnist_with_summaries-tf_job_mnist.yaml", ""},
	{"tfjob/kubeflow-training-operator__examples-tf_job_tensorboard_azure.yaml", ""},
	{"tfjob/kubeflow-training-operator__examples-v1beta1-mnist_with_summaries-tf_job_mnist.yaml", ""},
	{"xgboostjob/kubeflow-training-operator@v1.9.0__examples-xgboost-xgboost-dist-xgboostjob_v1_iris_predict_local.yaml", ""},
	{"pytorchjob/kubeslice-ent-kubeflow-training__k8s-pytorchjob.yaml", "training-config.yaml"},
	{"pytorchjob/Lucas-SJY-train_llm_with_nrp__k8s-pytorchjob.yaml", "sft-env.yaml"},
	{"pytorchjob/deinal-kubeflow-v1beta1__pytorchjob.yaml", "s3-krb.yaml"},
	{"pytorchjob/kubeflow-pytorch-operator__examples-pytorchjob.yaml", "dist-train.yaml"},
	{"tfjob/kubeflow-examples__financial_time_series-tensorflow_model-GPU-tfjob3.yaml", "user-gcp-sa.yaml"},
}

// TestCorpusValidatesWithSiteConfig: each of those jobs is refused as it
// is (so the test can fail), and validates without -lossy given
// examples/site/corpus.hcl and its secrets file.
func TestCorpusValidatesWithSiteConfig(t *testing.T) {
	dir := testcorpus.Dir(t)
	t.Setenv("JOBSHIFT_CONFIG", "")
	site := filepath.Join("..", "..", "examples", "site", "corpus.hcl")
	for _, c := range sitedCorpus {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			job := filepath.Join(dir, c.file)
			var args []string
			if c.secrets != "" {
				args = []string{"-secrets", filepath.Join("..", "..", "examples", "secrets", c.secrets)}
			}
			var out, errOut bytes.Buffer
			if code := runValidate([]string{job}, &out, &errOut); code == 0 {
				t.Errorf("valid without the site config and secrets: this proves nothing\n%s", errOut.String())
			}
			out.Reset()
			errOut.Reset()
			if code := runValidate(append(append([]string{"-config", site}, args...), job), &out, &errOut); code != 0 {
				t.Errorf("exit %d with %s:\n%s", code, site, errOut.String())
			}
			if strings.Contains(errOut.String(), "Volume without a site rule") {
				t.Errorf("a volume is still unmapped:\n%s", errOut.String())
			}
		})
	}
}
