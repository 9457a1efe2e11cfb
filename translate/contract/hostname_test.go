package contract

import (
	"slices"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// TestHostNames: each format's pod host name, as the platform named it
// (kubeflow/common pkg/core/utils.go GenGeneralName for the training
// operator's kinds; mpi-operator v2beta1 pods named <job>-worker-<i> with
// the hostfile's <job>-worker-<i>.<job>.<ns>.svc; OpenPAI's ssh aliases).
func TestHostNames(t *testing.T) {
	tf := &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatTFJob},
		Roles: []*jobs.Role{{Name: "Worker", ReplicaType: "Worker", Instances: 2}}}
	mpi := &jobs.Job{Name: "pi", Source: jobs.Source{Format: jobs.FormatMPIJob},
		Extras: jobs.Extras{MPI: &jobs.MPI{HostSuffix: ".pi.default.svc"}},
		Roles:  []*jobs.Role{{Name: "Launcher", ReplicaType: "Launcher", Instances: 1}, {Name: "Worker", ReplicaType: "Worker", Instances: 2}}}
	pai := &jobs.Job{Name: "hvd", Source: jobs.Source{Format: jobs.FormatPAIv2},
		Roles: []*jobs.Role{{Name: "worker_A", Instances: 2}}}
	for _, tc := range []struct {
		job  *jobs.Job
		k, i int
		want []string
	}{
		{tf, 0, 1, []string{"mnist-worker-1"}},
		{mpi, 0, 0, []string{"pi-launcher", "pi-launcher.pi.default.svc"}},
		{mpi, 1, 1, []string{"pi-worker-1", "pi-worker-1.pi.default.svc"}},
		{pai, 0, 1, []string{"workera-1"}},
	} {
		if got := HostNames(tc.job, tc.k, tc.i); !slices.Equal(got, tc.want) {
			t.Errorf("%s role %d task %d: %q, want %q", tc.job.Source.Format, tc.k, tc.i, got, tc.want)
		}
	}
}
