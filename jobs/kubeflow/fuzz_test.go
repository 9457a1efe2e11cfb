package kubeflow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// FuzzRead feeds arbitrary bytes to Read, seeded from testdata and the
// corpus. Properties: no panic; every diagnostic is located; a result
// without errors has a job with at least one role, each with at least one
// port, and the job marshals to JSON (what explain -format json prints).
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	wd, _ := os.Getwd() // the package directory; the corpus is <repo>/../shared/corpus
	for _, folder := range []string{"tfjob", "pytorchjob", "mpijob"} {
		more, _ := filepath.Glob(filepath.Join(wd, "..", "..", "..", "shared", "corpus", folder, "*"))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, false)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, lossy bool) {
		job, diags := Read(src, jobs.ReadOptions{Path: "fuzz.yaml", Lossy: lossy})
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 1 {
				t.Fatalf("unlocated diagnostic %q", d.Summary)
			}
		}
		if diags.HasErrors() {
			return
		}
		if job == nil || len(job.Roles) == 0 {
			t.Fatalf("no error but no job/roles: %+v", job)
		}
		for _, r := range job.Roles {
			if len(r.Ports) == 0 {
				t.Fatalf("role %s has no port", r.Name)
			}
		}
		if _, err := json.Marshal(job); err != nil {
			t.Fatalf("job does not marshal: %v", err)
		}
	})
}
