package kubeflow

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// corpusDir is <repo root>/../shared/corpus.
func corpusDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not present at %s", dir)
	}
	return dir
}

// corpusInvalid are the files the corpus README calls invalid, with the
// summary of the error that must explain why.
var corpusInvalid = map[string]string{
	"tfjob/kubeflow-examples__object_detection-distributed_training-conf-pets-training.yaml": "Invalid YAML",
	"tfjob/EastAsia666-mnist_example__tf_job_mnist.yaml":                                     "Replica type missing",
	"tfjob/kubeflow-training-operator__test-e2e-tf_job_setup_failure.yaml":                   "Empty tensorboard.logDir",
	"pytorchjob/TylrDn-pytorch-ddp-nccl-distributed__k8s-pytorchjob.yaml":                    "No YAML document",
	// Not called invalid by the README, but a kustomize base: its name is
	// the placeholder $(trainingName), which Kubernetes rejects as is.
	"tfjob/kubeflow-examples__mnist-training-base-Chief.yaml": "Unrendered placeholder in the job name",
}

// TestCorpus reads every TFJob, PyTorchJob and MPIJob file of the corpus:
// never a panic; every file yields a job or located errors; the invalid
// ones fail for the documented reason; MPIJobs are refused. Read with
// -lossy, every valid TFJob/PyTorchJob must convert.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, folder := range []string{"tfjob", "pytorchjob", "mpijob"} {
		files, _ := filepath.Glob(filepath.Join(dir, folder, "*"))
		if len(files) == 0 {
			t.Errorf("%s: no files", folder)
		}
		var converted, warned, failed, lossyOK int
		for _, f := range files {
			rel := folder + "/" + filepath.Base(f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !IsKubeflow(src) {
				t.Errorf("%s: IsKubeflow = false", rel)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: rel})
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Start.Line < 1 {
					t.Errorf("%s: diagnostic without position: %s", rel, d.Summary)
				}
			}
			switch {
			case diags.HasErrors():
				failed++
			case len(diags) > 0:
				warned++
			default:
				converted++
			}
			if !diags.HasErrors() && job == nil {
				t.Errorf("%s: no job and no error", rel)
			}
			if want, bad := corpusInvalid[rel]; bad {
				if !hasError(diags, want) {
					t.Errorf("%s: want error %q, got:\n%s", rel, want, formatDiags(diags))
				}
				continue
			}
			if folder == "mpijob" {
				if !hasError(diags, "MPIJob is not supported yet") {
					t.Errorf("%s: want the MPIJob error, got:\n%s", rel, formatDiags(diags))
				}
				continue
			}
			ljob, ldiags := Read(src, jobs.ReadOptions{Path: rel, Lossy: true})
			if ldiags.HasErrors() || ljob == nil || len(ljob.Roles) == 0 {
				t.Errorf("%s: does not convert even with -lossy:\n%s", rel, formatDiags(ldiags))
			} else {
				lossyOK++
			}
			if testing.Verbose() {
				t.Logf("%s:\n%s", rel, formatDiags(diags))
			}
		}
		t.Logf("%s: %d files: %d converted clean, %d with warnings only, %d with errors (%d of the valid ones convert with -lossy)",
			folder, len(files), converted, warned, failed, lossyOK)
	}
}

func hasError(diags hcl.Diagnostics, summary string) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagError && strings.Contains(d.Summary, summary) {
			return true
		}
	}
	return false
}
