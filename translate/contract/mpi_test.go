package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func mpiTestJob(version, impl, agent, suffix string, slots int, asWorker bool) *jobs.Job {
	return &jobs.Job{Name: "pi", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: version}, Contracts: []string{jobs.ContractMPI},
		Extras: jobs.Extras{MPI: &jobs.MPI{SlotsPerWorker: slots, Implementation: impl, RshAgent: agent, HostSuffix: suffix, RunLauncherAsWorker: asWorker}},
		Roles: []*jobs.Role{
			{Name: "launcher", ReplicaType: "launcher", Instances: 1, Ports: []jobs.Port{{Label: "ssh", Count: 1, Implicit: true}}},
			{Name: "worker", ReplicaType: "worker", Instances: 2, Ports: []jobs.Port{{Label: "ssh", Count: 1, Implicit: true}}},
		}}
}

// Expected environments written from mpi-operator's controllers (see mpi.go).
func TestMPIEnv(t *testing.T) {
	v2 := mpiTestJob("kubeflow.org/v2beta1", "OpenMPI", "ssh", ".pi.default.svc", 4, false)
	cases := map[string]struct {
		job  *jobs.Job
		role string
		opts Options
		want Env
	}{
		"v2beta1 OpenMPI launcher": {v2, "launcher", Options{}, Env{
			{"K_MPI_JOB_ROLE", "launcher"}, {"OMPI_MCA_orte_keep_fqdn_hostnames", "true"},
			{"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"}, {"OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"},
			{"OMPI_MCA_orte_set_default_slots", "4"}, {"NVIDIA_VISIBLE_DEVICES", ""}, {"NVIDIA_DRIVER_CAPABILITIES", ""}}},
		"v2beta1 worker": {v2, "worker", Options{}, Env{{"K_MPI_JOB_ROLE", "worker"}}},
		"v2beta1 Intel launcher as worker, per-job dir": {mpiTestJob("kubeflow.org/v2beta1", "Intel", "ssh", ".pi.ns.svc", 2, true), "launcher", Options{MPIDir: "/run/js/pi"}, Env{
			{"K_MPI_JOB_ROLE", "launcher"}, {"I_MPI_HYDRA_HOST_FILE", "/run/js/pi/hostfile"},
			{"I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "-o ConnectionAttempts=10"}, {"I_MPI_PERHOST", "2"}}},
		"v2beta1 MPICH launcher": {mpiTestJob("kubeflow.org/v2beta1", "MPICH", "ssh", "", 1, false), "launcher", Options{}, Env{
			{"K_MPI_JOB_ROLE", "launcher"}, {"HYDRA_HOST_FILE", "/etc/mpi/hostfile"}, {"HYDRA_LAUNCH_EXTRA_ARGS", "-o ConnectionAttempts=10"},
			{"NVIDIA_VISIBLE_DEVICES", ""}, {"NVIDIA_DRIVER_CAPABILITIES", ""}}},
		"v1alpha2 launcher": {mpiTestJob("kubeflow.org/v1alpha2", "OpenMPI", "kubexec", "", 1, false), "launcher", Options{}, Env{
			{"OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"}, {"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"},
			{"NVIDIA_VISIBLE_DEVICES", ""}, {"NVIDIA_DRIVER_CAPABILITIES", ""}}},
		"v1alpha2 worker: nothing": {mpiTestJob("kubeflow.org/v1alpha2", "OpenMPI", "kubexec", "", 1, false), "worker", Options{}, Env{}},
		"v1 GPU launcher keeps NVIDIA": {mpiTestJob("kubeflow.org/v1", "OpenMPI", "kubexec", "", 1, true), "launcher", Options{}, Env{
			{"OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"}, {"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"}}},
		"v1alpha1 launcher: no NVIDIA": {mpiTestJob("kubeflow.org/v1alpha1", "OpenMPI", "kubexec", "", 1, false), "launcher", Options{}, Env{
			{"OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"}, {"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Eval(tc.job, SampleTopology(tc.job), jobs.TaskRef{Role: tc.role, Index: 0}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestMPIHostfile(t *testing.T) {
	cases := map[string]struct {
		job  *jobs.Job
		want string
	}{
		"v2beta1 OpenMPI": {mpiTestJob("kubeflow.org/v2beta1", "OpenMPI", "ssh", ".pi.default.svc", 4, false),
			"pi-worker-0.pi.default.svc slots=4\npi-worker-1.pi.default.svc slots=4\n"},
		"v2beta1 Intel, launcher first": {mpiTestJob("kubeflow.org/v2beta1", "Intel", "ssh", ".pi.ns.svc", 2, true),
			"pi-launcher.pi.ns.svc:2\npi-worker-0.pi.ns.svc:2\npi-worker-1.pi.ns.svc:2\n"},
		"v1alpha2 bare pod names": {mpiTestJob("kubeflow.org/v1alpha2", "OpenMPI", "kubexec", "", 8, false),
			"pi-worker-0 slots=8\npi-worker-1 slots=8\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Hostfile(tc.job)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
