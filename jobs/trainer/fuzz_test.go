package trainer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// FuzzRead: any input reads without a panic, and every diagnostic is
// located.
func FuzzRead(f *testing.F) {
	f.Add([]byte(torchJob))
	f.Add([]byte(mpiJob + "---\n" + mpiRuntime))
	f.Add([]byte("kind: TrainJob\nspec: {runtimeRef: {name: x}}\n"))
	// every release's fields: the examples, the JobSet policies, the
	// initializer and its volume
	examples, _ := filepath.Glob(filepath.Join("..", "..", "examples", "trainjob-*.yaml"))
	for _, e := range examples {
		if b, err := os.ReadFile(e); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(completionJob("  activeDeadlineSeconds: 60\n", "  podGroupPolicy:\n    coscheduling: {scheduleTimeoutSeconds: 5}\n",
		"      successPolicy: {operator: Any}\n      failurePolicy: {maxRestarts: 2}\n", "              backoffLimit: 0\n")))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, diags := Read(src, jobs.ReadOptions{Path: "f.yaml"})
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("unlocated: %s", d.Summary)
			}
		}
	})
}
