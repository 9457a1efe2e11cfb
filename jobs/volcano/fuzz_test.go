package volcano

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// FuzzRead feeds arbitrary bytes to Read, seeded from testdata and the
// corpus's volcano folder. Properties: no panic; every diagnostic is
// located; a result without errors has a job whose roles and Volcano
// tasks match one to one, and it marshals to JSON (explain -format json).
func FuzzRead(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	wd, _ := os.Getwd()
	more, _ := filepath.Glob(filepath.Join(wd, "..", "..", "..", "shared", "corpus", "volcano", "*"))
	for _, s := range append(seeds, more...) {
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
		if job == nil || len(job.Roles) == 0 || job.Extras.Volcano == nil || len(job.Extras.Volcano.Tasks) != len(job.Roles) {
			t.Fatalf("no error but no job, roles or tasks: %+v", job)
		}
		if _, err := json.Marshal(job); err != nil {
			t.Fatalf("job does not marshal: %v", err)
		}
	})
}
