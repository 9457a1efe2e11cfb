package trainer

import (
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// FuzzRead: any input reads without a panic, and every diagnostic is
// located.
func FuzzRead(f *testing.F) {
	f.Add([]byte(torchJob))
	f.Add([]byte(mpiJob + "---\n" + mpiRuntime))
	f.Add([]byte("kind: TrainJob\nspec: {runtimeRef: {name: x}}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, diags := Read(src, jobs.ReadOptions{Path: "f.yaml"})
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("unlocated: %s", d.Summary)
			}
		}
	})
}
