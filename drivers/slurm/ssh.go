package slurm

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jobshift/jobshift/jobs"
)

// The ssh emulation (drivers/sshemu) on Slurm: the batch script writes the
// wrapper and makes the attempt's job key with ssh-keygen in the attempt's
// state directory (0600, made on the node, never in the script; removed
// when the attempt ends); stage 2 of every ssh task execs its command
// through the wrapper, so the user's mpirun runs unchanged with the same
// ssh aliases as on OpenPAI or Kubernetes.

// sshMPIDir is where an MPIJob launcher writes the hostfile: the contract
// needs one literal path, and the tasks run on the nodes' own /tmp; a
// random part per rendered script keeps two jobs of the same name apart.
func sshMPIDir(job *jobs.Job) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("/tmp/jobshift-mpi-%s-%s", nameRE.ReplaceAllString(job.Name, "_"), hex.EncodeToString(b))
}
