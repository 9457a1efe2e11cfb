package slurm

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
)

// The ssh emulation (drivers/sshemu) on Slurm: the batch script writes the
// wrapper and makes the attempt's job key with ssh-keygen in the attempt's
// state directory (0600, made on the node, never in the script; removed
// when the attempt ends); stage 2 of every ssh task execs its command
// through the wrapper, so the user's mpirun runs unchanged with the same
// ssh aliases as on OpenPAI or Kubernetes. js_prepare (sh/batch.sh) does
// the batch script's part; js_run (sh/run.sh) the task's.

// mpiDirData is the data of js_prepare's MPI directory part, for a job
// whose contract names the directory (hostfile, kubexec.sh): the
// directory is named at run time (contract.Options.MPIDirRunTime), inside
// the attempt's state directory, so the rendered script is the same for
// every submission while each job and attempt gets its own; every node
// reads the state directory, as it reads task.sh. Made 0700 before any
// task starts; js_main removes it with the job key when the attempt ends.
// OpenMPI splits its rsh agent (<dir>/kubexec.sh, the kubexec generations)
// on blanks, so such a job refuses a state directory with one instead of
// failing in mpirun (_jsh_mpi_noblank).
func mpiDirData(job *jobs.Job, uses bool) string {
	noBlank := false
	if m := job.Extras.MPI; m != nil && m.RshAgent != "ssh" {
		noBlank = true
	}
	return fmt.Sprintf("_jsh_mpidir=%d\n_jsh_mpi_noblank=%d\n", b2i(uses), b2i(uses && noBlank))
}
