package kubeflow

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// fuzzKind feeds bytes shaped like one training-operator kind to Read,
// seeded from its testdata and its corpus folder. Properties: no panic;
// every diagnostic is located; a job of the kind read without errors has
// the kind's contract and the pytorch rule family, only the kind's replica
// types (MXJob: any, as its validation), and the kind's named port on every
// role (the operator's default added when absent).
func fuzzKind(f *testing.F, format jobs.Format, glob, corpus string) {
	seeds, _ := filepath.Glob("testdata/" + glob)
	wd, _ := os.Getwd()
	more, _ := filepath.Glob(filepath.Join(wd, "..", "..", "..", "shared", "corpus", corpus, "*"))
	for _, s := range append(seeds, more...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	ks := otherKinds[format]
	f.Fuzz(func(t *testing.T, src []byte, lossy bool) {
		job, diags := Read(src, jobs.ReadOptions{Path: "fuzz.yaml", Lossy: lossy})
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 1 {
				t.Fatalf("unlocated diagnostic %q", d.Summary)
			}
		}
		if diags.HasErrors() || job == nil || job.Source.Format != format {
			return
		}
		if len(job.Contracts) != 1 || job.Contracts[0] != ks.contract || job.Completion.Kind != jobs.CompletionPyTorch {
			t.Fatalf("%s read with contracts %v and completion %q", ks.kind, job.Contracts, job.Completion.Kind)
		}
		for _, r := range job.Roles {
			if _, ok := ks.rs.canonical[r.ReplicaType]; !ok && ks.rs.unknownIsError {
				t.Fatalf("%s role %q has replica type %q", ks.kind, r.Name, r.ReplicaType)
			}
			found := false
			for _, p := range r.Ports {
				found = found || p.Label == ks.rs.fl.portName && p.Count == 1 && p.Number >= 1 && p.Number <= 65535
			}
			if !found {
				t.Fatalf("%s role %q lacks its %s port: %+v", ks.kind, r.Name, ks.rs.fl.portName, r.Ports)
			}
		}
	})
}

func FuzzReadXGBoostJob(f *testing.F) {
	fuzzKind(f, jobs.FormatXGBoostJob, "xgboostjob*.yaml", "xgboostjob")
}
func FuzzReadPaddleJob(f *testing.F) {
	fuzzKind(f, jobs.FormatPaddleJob, "paddlejob*.yaml", "paddlejob")
}
func FuzzReadJAXJob(f *testing.F) { fuzzKind(f, jobs.FormatJAXJob, "jaxjob*.yaml", "jaxjob") }
func FuzzReadMXJob(f *testing.F)  { fuzzKind(f, jobs.FormatMXJob, "mxjob*.yaml", "mxjob") }
