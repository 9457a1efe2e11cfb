package nomad

import (
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/sshemu"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// The ssh emulation (drivers/sshemu) on Nomad: the wrapper travels as a
// template file of the task, the job key as an item of the job's Nomad
// Variable (nomad/jobs/<job ID>, which the task reads with its workload
// identity; Submit writes it), rendered into the task's secrets directory
// 0600. The wrapper is the outermost command, so the sshd outlives
// in-place restarts of the user command.

const (
	sshKeyItem    = "jobshift_ssh_key" // item of the job's variable
	sshScriptFile = "secrets/jobshift-sshemu.sh"
	sshKeyFile    = "secrets/jobshift-ssh-key"
)

// The wrapper and the key live under the task's secrets/, which Nomad's
// file API does not serve; the sshd's directory is the wrapper's own
// fresh one under /tmp (sshemu.sh): Nomad's task directories, secrets/
// included, are 0777 and owned by nobody (Nomad v1.11.3
// client/allocdir task_dir.go Build, fs_unix.go dropDirPermissions), so
// another user of the client could rename a directory there and put
// their own, with their key, in its place.

// sshMPIDir is where an MPIJob launcher's hostfile goes: a path of the
// job's own on the client (raw_exec tasks share the host's /etc), the
// same in a container. The last task of the job on a client removes it
// when it ends (the emulation's marker files, sshemu.sh). Another user
// of the client can predict the path: the wrapper makes it fresh or takes
// only a directory of the job user's own that nobody else can write
// (sshemu.sh own_dir), so a directory planted there fails the task
// instead of running the planter's kubexec.sh.
func sshMPIDir(jobID string) string { return "/tmp/jobshift-mpi-" + jobID }

// MPIDir is the MPI directory of the job of that Nomad ID on its clients.
func MPIDir(jobID string) string { return sshMPIDir(jobID) }

// sshWrap puts the task's command under the wrapper (which the task view,
// if any, wraps in turn).
func (r *renderer) sshWrap(role *jobs.Role, uc *userCommand) *userCommand {
	rp := r.plan.Compiled().Role(role.Name)
	if !rp.SSH {
		return uc
	}
	out := *uc
	out.argv = sshemu.Wrap(rp.SSHIdle, "${NOMAD_SECRETS_DIR}/jobshift-sshemu.sh", uc.argv)
	key := `{{ with nomadVar ` + quoteTemplateString(VariablePath(r.jobID)) + ` }}{{ index . ` + quoteTemplateString(sshKeyItem) + ` }}{{ end }}`
	out.extra = append(append([]*api.Template(nil), uc.extra...),
		r.fileTemplate(sshScriptFile, sshemu.Script),
		&api.Template{EmbeddedTmpl: new(key), DestPath: new(sshKeyFile), ChangeMode: new("noop"), Once: new(true), Perms: new("0600")})
	out.env = map[string]string{
		sshemu.KeyVar: "${NOMAD_SECRETS_DIR}/jobshift-ssh-key",
	}
	if path := r.sshFiles(role); path != "" {
		// the view or the container places sshFilesDir there (view.go)
		out.env[sshemu.FilesVar] = path
	}
	return &out
}

// sshItems adds the job key to the items of the job's variable.
func sshItems(p *translate.Plan, items map[string]string) error {
	if !p.Compiled().SSH {
		return nil
	}
	priv, _, err := sshemu.NewKey()
	if err != nil {
		return err
	}
	items[sshKeyItem] = string(priv)
	return nil
}
