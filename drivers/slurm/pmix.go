package slurm

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// How an MPI job's mpirun line starts its ranks (slurm { mpi = ... }).
const (
	// MPISSH: OpenMPI's own launch over the ssh emulation (drivers/sshemu),
	// as on the source platform; the default.
	MPISSH = "ssh"
	// MPIPMIx: the line becomes one `srun --mpi=pmix` step whose tasks are
	// the ranks (Slurm's MPI guide, https://slurm.schedmd.com/mpi_guide.html,
	// mode 1: Slurm launches the tasks, PMIx wires them up), on the nodes of
	// the tasks the line names. The site provides Slurm's mpi_pmix plugin
	// (`srun --mpi=list` shows pmix) and an OpenMPI built with PMIx; the
	// job's file does not change (sh/mpirun.sh).
	MPIPMIx = "pmix"
)

// shMpirun is the mpirun the emulation puts on an ssh task's PATH under
// the pmix opt-in.
//
//go:embed sh/mpirun.sh
var shMpirun string

// pmixOn reports whether job's mpirun lines become srun --mpi=pmix steps:
// the site opted in, the job runs the ssh emulation, and its mpirun is
// OpenMPI's (an MPIJob's mpiImplementation; PAI jobs' horovod images carry
// OpenMPI). An Intel MPI or MPICH job keeps its ssh launch, with a warning:
// their mpirun syntax is another (Hydra), which the shim does not read.
func pmixOn(job *jobs.Job, st settings) (bool, hcl.Diagnostics) {
	if st.MPI != MPIPMIx || contract.SSHRoles(job) == nil {
		return false, nil
	}
	if m := job.Extras.MPI; m != nil && m.Implementation != "" && m.Implementation != "OpenMPI" {
		return false, hcl.Diagnostics{jobs.Warnf(jobPos(job), "MPI over ssh",
			"The site launches MPI ranks with srun --mpi=pmix (slurm { mpi = \"pmix\" }), which jobshift does for OpenMPI's mpirun only; this %s job's launcher reaches its workers over ssh as on Kubernetes.", m.Implementation)}
	}
	return true, nil
}

// pmixData renders js_pmix's data: _jsh_pmix 0|1, the shim, and every ssh
// task's aliases as "role index alias..." lines (_jsh_pmix_tasks), which
// js_pmix pairs with the node js_topology gave the task.
func pmixData(job *jobs.Job, on bool) string {
	if !on {
		return "_jsh_pmix=0\n"
	}
	rs := contract.SSHRoles(job)
	var b strings.Builder
	for k, r := range job.Roles {
		if !rs[k] {
			continue
		}
		for i := range r.Instances {
			fmt.Fprintf(&b, "%d %d %s\n", k, i, strings.Join(contract.SSHAliases(job, k, i), " "))
		}
	}
	return fmt.Sprintf("_jsh_pmix=1\n_jsh_pmix_tasks=%s\n_jsh_mpirun=%s\n", shQuote(b.String()), shQuote(shMpirun))
}

// pmixLayout: the ranks' step spans the nodes of several roles, which one
// allocation (packed) gives; a het job's components are separate
// allocations for srun. An asked-for het layout is overridden, with a
// warning.
func pmixLayout(job *jobs.Job, layout, asked string) (string, hcl.Diagnostics) {
	if layout != LayoutHet {
		return layout, nil
	}
	var d hcl.Diagnostics
	if asked == LayoutHet {
		d = append(d, jobs.Warnf(jobPos(job), "Layout het ignored", "MPI ranks launched by srun --mpi=pmix (slurm { mpi = \"pmix\" }) run as one step across the job's roles, which needs the packed layout (one allocation); layout het ignored."))
	}
	return LayoutPacked, d
}
