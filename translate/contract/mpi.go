package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// MPIDefaultDir is where every mpi-operator generation mounted the
// hostfile (and, before v2beta1, kubexec.sh): the ConfigMap volume at
// /etc/mpi. Targets that give each task its own file system (containers)
// deliver the files there; targets that share a host pass a per-job
// directory in Options.MPIDir.
const MPIDefaultDir = "/etc/mpi"

// mpi is the environment mpi-operator appended to the containers
// (kubeflow/mpi-operator; see jobs/kubeflow/mpijob.go for the versions):
//
//   - v2beta1 (pkg/controller/mpi_job_controller.go @v0.8.2): every pod gets
//     K_MPI_JOB_ROLE (launcher|worker); the launcher then, per
//     mpiImplementation: OpenMPI OMPI_MCA_orte_keep_fqdn_hostnames=true,
//     OMPI_MCA_orte_default_hostfile, OMPI_MCA_plm_rsh_args=-o
//     ConnectionAttempts=10, OMPI_MCA_orte_set_default_slots=<slots>;
//     Intel I_MPI_HYDRA_HOST_FILE, I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS,
//     I_MPI_PERHOST=<slots>; MPICH HYDRA_HOST_FILE,
//     HYDRA_LAUNCH_EXTRA_ARGS; and, unless runLauncherAsWorker, empty
//     NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES.
//   - v1alpha1 … v1 (pkg/controllers/*/mpi_job_controller.go @v0.2.3,
//     v0.3.0): the launcher only: OMPI_MCA_plm_rsh_agent=/etc/mpi/kubexec.sh,
//     OMPI_MCA_orte_default_hostfile; v1alpha2 always and v1 unless the
//     launcher has GPUs also blank the two NVIDIA variables.
//
// The values are job-static: the hostfile names hosts, not addresses (see
// Hostfile; the target resolves the names).
func (b *builder) mpi() {
	j := b.job
	m := mpiOf(j)
	launcher := strings.EqualFold(j.Roles[b.self].ReplicaType, "launcher")
	dir := b.mpiDirExpr()
	hostfile := cat(dir, lit("/hostfile"))
	if m.RshAgent != "ssh" {
		if !launcher {
			return
		}
		b.set("OMPI_MCA_plm_rsh_agent", cat(dir, lit("/kubexec.sh")))
		b.set("OMPI_MCA_orte_default_hostfile", hostfile)
		if j.Source.Version == "kubeflow.org/v1alpha2" || (j.Source.Version == "kubeflow.org/v1" && !m.RunLauncherAsWorker) {
			b.setLit("NVIDIA_VISIBLE_DEVICES", "")
			b.setLit("NVIDIA_DRIVER_CAPABILITIES", "")
		}
		return
	}
	if !launcher {
		b.setLit("K_MPI_JOB_ROLE", "worker")
		return
	}
	b.setLit("K_MPI_JOB_ROLE", "launcher")
	slots := strconv.Itoa(m.SlotsPerWorker)
	switch m.Implementation {
	case "Intel":
		b.set("I_MPI_HYDRA_HOST_FILE", hostfile)
		b.setLit("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "-o ConnectionAttempts=10")
		b.setLit("I_MPI_PERHOST", slots)
	case "MPICH":
		b.set("HYDRA_HOST_FILE", hostfile)
		b.setLit("HYDRA_LAUNCH_EXTRA_ARGS", "-o ConnectionAttempts=10")
	default:
		b.setLit("OMPI_MCA_orte_keep_fqdn_hostnames", "true")
		b.set("OMPI_MCA_orte_default_hostfile", hostfile)
		b.setLit("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10")
		b.setLit("OMPI_MCA_orte_set_default_slots", slots)
	}
	if !m.RunLauncherAsWorker {
		b.setLit("NVIDIA_VISIBLE_DEVICES", "")
		b.setLit("NVIDIA_DRIVER_CAPABILITIES", "")
	}
}

// mpiOf is the job's MPI settings, or v2beta1's defaults for a job from
// another format (opt-in with -contract mpi).
func mpiOf(j *jobs.Job) jobs.MPI {
	if j.Extras.MPI != nil {
		return *j.Extras.MPI
	}
	return jobs.MPI{SlotsPerWorker: 1, Implementation: "OpenMPI", RshAgent: "ssh", HostSuffix: ""}
}

// MPIHost is the host name the operator gave task i of the role of type rt
// (launcher or worker): the pod name <job>-<rt>[-<i>] plus the generation's
// suffix (".<job>.<ns>.svc" for v2beta1). The launcher has no index.
func MPIHost(job *jobs.Job, rt string, i int) string {
	m := mpiOf(job)
	if rt == "launcher" {
		return job.Name + "-launcher" + m.HostSuffix
	}
	return fmt.Sprintf("%s-%s-%d%s", job.Name, rt, i, m.HostSuffix)
}

// Hostfile is the content of <MPIDir>/hostfile, as the operator's
// newConfigMap wrote it: the launcher first when it also works
// (runLauncherAsWorker; v1 with a GPU launcher), then every worker, one
// line each: `<host> slots=<n>` for OpenMPI, `<host>:<n>` for Intel and
// MPICH.
func Hostfile(job *jobs.Job) string {
	m := mpiOf(job)
	var b strings.Builder
	line := func(h string) {
		if m.Implementation == "Intel" || m.Implementation == "MPICH" {
			fmt.Fprintf(&b, "%s:%d\n", h, m.SlotsPerWorker)
		} else {
			fmt.Fprintf(&b, "%s slots=%d\n", h, m.SlotsPerWorker)
		}
	}
	if m.RunLauncherAsWorker {
		line(MPIHost(job, "launcher", 0))
	}
	for _, r := range job.Roles {
		if strings.EqualFold(r.ReplicaType, "worker") {
			for i := range r.Instances {
				line(MPIHost(job, "worker", i))
			}
		}
	}
	return b.String()
}
