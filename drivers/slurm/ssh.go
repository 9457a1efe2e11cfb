package slurm

import (
	"fmt"

	"github.com/jobshift/jobshift/drivers/sshemu"
	"github.com/jobshift/jobshift/jobs"
)

// The ssh emulation (drivers/sshemu) on Slurm: the batch script writes the
// wrapper and makes the attempt's job key with ssh-keygen in the attempt's
// state directory (0600, made on the node, never in the script; removed
// when the attempt ends); stage 2 of every ssh task execs its command
// through the wrapper, so the user's mpirun runs unchanged with the same
// ssh aliases as on OpenPAI or Kubernetes.

// sshFiles is the js_prepare part: the wrapper (from the plain variable
// _jsh_sshemu) and a fresh key.
const sshFiles = "\tprintf '%s' \"$_jsh_sshemu\" >\"$_jsh_adir/sshemu.sh\" || js_die 97 'cannot write the ssh emulation'\n" +
	"\trm -f \"$_jsh_adir/ssh-key\" \"$_jsh_adir/ssh-key.pub\"\n" +
	"\t(umask 077 && ssh-keygen -q -t ed25519 -N '' -C jobshift -f \"$_jsh_adir/ssh-key\") ||\n" +
	"\t\tjs_die 97 'cannot make the job ssh key (ssh-keygen from openssh-client is needed on the nodes)'\n"

// mpiDirFiles is the js_prepare part of a job whose contract names the MPI
// directory (hostfile, kubexec.sh): the directory is named at run time
// (contract.Options.MPIDirRunTime), inside the attempt's state directory,
// so the rendered script is the same for every submission while each job
// and attempt gets its own; every node reads the state directory, as it
// reads task.sh. Made 0700 before any task starts; js_main removes it with
// the job key when the attempt ends. OpenMPI splits its rsh agent
// (<dir>/kubexec.sh, the kubexec generations) on blanks, so such a job
// refuses a state directory with one instead of failing in mpirun.
func mpiDirFiles(job *jobs.Job) string {
	s := "\tJS_MPI_DIR=$_jsh_adir/mpi\n\texport JS_MPI_DIR\n"
	if m := job.Extras.MPI; m != nil && m.RshAgent != "ssh" {
		s += "\tcase $JS_MPI_DIR in *[[:space:]]*) js_die 97 \"the state directory $_jsh_adir has a blank, which OpenMPI's rsh agent setting cannot carry; set JOBSHIFT_STATE_DIR to a path without one\" ;; esac\n"
	}
	return s + "\t(umask 077 && mkdir \"$JS_MPI_DIR\") || js_die 97 \"cannot make the MPI directory $JS_MPI_DIR\"\n"
}

// sshPrefix is what goes between `exec ` and a role's command: the wrapper
// and, before the exec, its two variables ($2 is the attempt's state
// directory in stage 2). "" for a role without the emulation.
func sshPrefix(job *jobs.Job, k int) (env, prefix string) {
	if !sshemu.RoleEnabled(job, k) {
		return "", ""
	}
	env = fmt.Sprintf("%s=\"$2/ssh-key\" %s=\"$2/ssh-%d-$SLURM_PROCID\"\n\texport %s %s\n\t",
		sshemu.KeyVar, sshemu.DirVar, k, sshemu.KeyVar, sshemu.DirVar)
	return env, "sh \"$2/sshemu.sh\" -- "
}

// sshIdleRun is stage 2 of an idle MPIJob worker: only the sshd.
func sshIdleRun(job *jobs.Job, k int) string {
	env, _ := sshPrefix(job, k)
	return env + "exec sh \"$2/sshemu.sh\" " + sshemu.IdleFlag
}
