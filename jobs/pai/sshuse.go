package pai

import (
	"fmt"
	"regexp"

	"github.com/jobshift/jobshift/jobs"
)

// sshCommandRE finds a command that reaches other tasks over ssh: mpirun,
// mpiexec, horovodrun, ssh, scp or pdsh as a word (after a separator or a
// path), not inside an option such as --ssh-port.
var sshCommandRE = regexp.MustCompile(`(?m)(?:^|[\s;&|(` + "`" + `/])(mpirun|mpiexec|horovodrun|ssh|scp|pdsh)(?:\s|$)`)

// sshUse warns, per role, about a command that uses ssh or mpirun in a
// job of more than one task (a single task's mpirun stays local and needs
// no ssh). OpenPAI set up ssh between tasks only through the ssh runtime
// plugin (jobssh: true: sshd per task, a job key pair, `<role>-<index>`
// aliases in ~/.ssh/config); without it the command failed there too, and
// fails under jobshift, which emulates the plugin (drivers/sshemu) only
// where the job enables it: say so rather than call the job fine.
func sshUse(job *jobs.Job, warn func(p jobs.Pos, summary, format string, args ...any)) {
	if job == nil || job.TaskCount() < 2 {
		return
	}
	for _, r := range job.Roles {
		m := sshCommandRE.FindStringSubmatch(r.Command.Script)
		if m == nil {
			continue
		}
		if jobSSH(job, r.Name) {
			continue // every target runs the plugin's set-up (drivers/sshemu)
		}
		warn(r.Command.Pos, fmt.Sprintf("Command uses %s without the ssh plugin", m[1]), "The commands of role %q run %s, which reaches other tasks over ssh, but the job does not enable OpenPAI's ssh runtime plugin with jobssh: true for this role (with extras.gangAllocation). Without it OpenPAI gave the tasks no sshd, keys or <role>-<index> host names, and neither does jobshift: the command fails when it contacts a peer.", r.Name, m[1])
	}
}

// jobSSH reports whether the ssh plugin with jobssh: true covers role (a
// plugin without taskroles covers every role) and gang allocation keeps it
// on (OpenPAI turned jobssh off without it).
func jobSSH(job *jobs.Job, role string) bool {
	if !job.Retry.GangAllocation {
		return false
	}
	for _, p := range job.Extras.RuntimePlugins {
		if p.Plugin != "ssh" || p.Parameters["jobssh"] != true {
			continue
		}
		if len(p.TaskRoles) == 0 {
			return true
		}
		for _, r := range p.TaskRoles {
			if r == role {
				return true
			}
		}
	}
	return false
}
