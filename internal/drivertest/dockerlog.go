package drivertest

import (
	"slices"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// OutlastDockerLogger makes role's `python3 -c PROGRAM` command in job
// sleep a second after its program's work. Nomad's docker logger attaches
// to a container once it has started, and one that exits within a few ms
// may be gone by then, its output lost (hashicorp/nomad#6931, open; seen
// here in v1.11.3 with the TrainJob initializer example's trainer nodes):
// a test that reads such a task's output on the docker driver needs it to
// live that long. The exit status stays the program's.
func OutlastDockerLogger(t *testing.T, job *jobs.Job, role string) {
	t.Helper()
	r := job.Role(role)
	if r == nil || len(r.Command.Command) != 3 || !slices.Equal(r.Command.Command[:2], []string{"python3", "-c"}) {
		t.Fatalf("role %s does not run python3 -c PROGRAM", role)
	}
	r.Command.Command[2] += "\nimport time\ntime.sleep(1)\n"
}
