package trainer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
)

// corpusReasons: why each corpus file that does not convert does not, by
// the summary of its first error (/work/shared/corpus/trainjob, see its
// SOURCES.md). Runtime-only files have no TrainJob; the Open Data Hub
// TrainJob names a ClusterTrainingRuntime of its cluster.
var corpusReasons = map[string]string{
	"kubeflow-trainer__manifests-base-runtimes-torchtune-llama3_2-llama3_2_1B.yaml":                     "No TrainJob in the file",
	"kubeflow-training-operator@v1.9.0__manifests-v2-base-runtimes-pre-training-torch-distributed.yaml": "No TrainJob in the file",
	"opendatahub-io-distributed-workloads__benchmarks-kftv2-mpi-ddp-sft-trainjob.yaml":                  "Runtime not found",
	"opendatahub-io-distributed-workloads__benchmarks-osu-benchmarks-mpi-runtime-cpu.yaml":              "No TrainJob in the file",
}

// TestCorpus: every trainjob/ file converts or fails for its documented,
// located reason; never a panic, never an unlocated diagnostic.
func TestCorpus(t *testing.T) {
	dir := testcorpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "trainjob", "*"))
	if len(files) == 0 {
		t.Fatal("no trainjob files")
	}
	for _, f := range files {
		name := filepath.Base(f)
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !IsTrainer(src) {
			t.Errorf("%s: IsTrainer = false", name)
		}
		job, diags := Read(src, jobs.ReadOptions{Path: name})
		var first string
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 1 {
				t.Errorf("%s: unlocated diagnostic %q", name, d.Summary)
			}
			if first == "" && d.Severity == hcl.DiagError {
				first = d.Summary
			}
		}
		want, bad := corpusReasons[name]
		switch {
		case bad && first != want:
			t.Errorf("%s: first error %q, want %q", name, first, want)
		case !bad && (job == nil || diags.HasErrors()):
			t.Errorf("%s: does not convert: %v", name, diags)
		}
	}
}
