package contract

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// Variables of the ssh emulation (drivers/sshemu): jobshift's own, not a
// platform's, so they are only set when a driver that runs the emulation
// asks for them (Options.SSH).
const (
	// SSHHostsVar lists every task that runs an sshd: entries separated by
	// ',', each "<addr> <port> <alias> [<alias>...]".
	SSHHostsVar = "JOBSHIFT_SSH_HOSTS"
	// SSHSelfVar is the first alias of the task itself.
	SSHSelfVar = "JOBSHIFT_SSH_SELF"
	// SSHBarrierVar is how many seconds the task waits for every peer's
	// sshd before its command starts ("" or unset: it does not wait).
	SSHBarrierVar = "JOBSHIFT_SSH_BARRIER"
	// SSHUserKeysVar holds the PAI userssh public keys, one per line.
	SSHUserKeysVar = "JOBSHIFT_SSH_USERKEYS"
	// MPIDirVar and MPIHostfileVar tell an MPIJob task where to write
	// the operator's files and the hostfile's lines (joined by ',').
	MPIDirVar      = "JOBSHIFT_MPI_DIR"
	MPIHostfileVar = "JOBSHIFT_MPI_HOSTFILE"
)

// DefaultSSHBarrier is OpenPAI's sshbarrierTimeout default (30 minutes),
// also the time an MPIJob launcher waits for its workers' sshd.
const DefaultSSHBarrier = 30 * 60

// SSHLabel is the port label every ssh task's sshd listens on (OpenPAI's
// $PAI_CONTAINER_SSH_PORT; the port jobshift gives an MPIJob pod).
const SSHLabel = "ssh"

// SSHRoles reports, per role of job, whether its tasks run an sshd and get
// the host aliases: every role of an MPIJob (the launcher reaches the
// workers over ssh, or kubexec before v2beta1, which jobshift also carries
// over ssh), and for a PAI job the roles its ssh runtime plugin covers with
// jobssh: true, as long as gang allocation keeps it on (OpenPAI turned
// jobssh off without it). nil = no role does.
func SSHRoles(job *jobs.Job) []bool {
	if job == nil {
		return nil
	}
	out := make([]bool, len(job.Roles))
	any := false
	for k, r := range job.Roles {
		if !hasLabel(r, SSHLabel) {
			continue
		}
		if job.Source.Format == jobs.FormatMPIJob || trainerMPIJob(job) || volcanoSSH(job) {
			out[k] = true
		} else {
			out[k] = paiJobSSH(job, r.Name)
		}
		any = any || out[k]
	}
	if !any {
		return nil
	}
	return out
}

// SSHFiles is where role k's tasks find the platform's ssh files ("" =
// nowhere): the job's key pair, and a client config naming every peer.
//   - A TrainJob with the mpi policy mounts its <job>-mpi-ssh-auth Secret
//     (id_rsa, id_rsa.pub, authorized_keys) on the launcher and the nodes
//     at the runtime's mpi.sshAuthMountPath, default /root/.ssh
//     (kubeflow/trainer pkg/runtime/framework/plugins/mpi/mpi.go
//     EnforceMLPolicy @v2.3.0).
//   - Volcano's ssh plugin mounts its Secret's id_rsa, id_rsa.pub,
//     authorized_keys and config in every container of the job at
//     --ssh-key-file-path, /root/.ssh by default (pkg/controllers/job/
//     plugins/ssh/ssh.go mountRsaKey, const.go SSHAbsolutePath
//     @v1.16.0-alpha.1).
//
// Targets place a private directory there that the ssh emulation fills
// at run time from the job's key and its peers' addresses, with its own
// client config as config (the emulation's sshd listens on a port of its
// own, which a program running ssh by its path learns only there)
// (drivers/sshemu FilesVar).
func SSHFiles(job *jobs.Job, k int) string {
	rs := SSHRoles(job)
	if rs == nil || !rs[k] {
		return ""
	}
	switch {
	case trainerMPIJob(job) && job.Extras.MPI != nil:
		return job.Extras.MPI.SSHAuthMountPath
	case volcanoSSH(job):
		return jobs.ParseVolcanoFlags("ssh", job.Extras.Volcano.Plugin("ssh").Args).SSHKeyFilePath
	}
	return ""
}

func hasLabel(r *jobs.Role, label string) bool {
	for _, p := range r.Ports {
		if p.Label == label && p.Count > 0 {
			return true
		}
	}
	return false
}

// paiJobSSH: the ssh plugin with jobssh: true covers role (a plugin
// without taskroles covers every role) and gang allocation is on.
func paiJobSSH(job *jobs.Job, role string) bool {
	if !job.Retry.GangAllocation {
		return false
	}
	for _, p := range job.Extras.RuntimePlugins {
		if p.Plugin == "ssh" && p.Parameters["jobssh"] == true && pluginCovers(p, role) {
			return true
		}
	}
	return false
}

// SSHAliases are the names task i of role k answers to over ssh. OpenPAI:
// `<role>-<i>` with the role name as in PAI_TASK_ROLE_INSTANCES
// (convertName). MPIJob: the pod's host name as the hostfile writes it
// (MPIHost), then the bare pod name when that differs (v2beta1 adds the
// service domain), so `ssh <job>-worker-0` works too.
func SSHAliases(job *jobs.Job, k, i int) []string {
	return sshAliasParts(job, k, strconv.Itoa(i))
}

// sshAliasParts builds the aliases around idx, a decimal index or a
// placeholder; the index is always the last thing before the suffix.
func sshAliasParts(job *jobs.Job, k int, idx string) []string {
	if f := hostNamers[job.Source.Format]; f != nil {
		return f(job, k, idx)
	}
	r := job.Roles[k]
	if job.Source.Format != jobs.FormatMPIJob {
		return []string{convertName(r.Name) + "-" + idx}
	}
	m := mpiOf(job)
	rt := strings.ToLower(r.ReplicaType)
	if rt == "" {
		rt = strings.ToLower(r.Name)
	}
	bare := job.Name + "-" + rt
	if rt != "launcher" {
		bare += "-" + idx
	}
	if m.HostSuffix == "" {
		return []string{bare}
	}
	return []string{bare + m.HostSuffix, bare}
}

// hostNamers gives, per input format, the names task idx of role k had on
// its platform: the pod's host name first, then the other names its peers
// used for it (headless-service FQDNs). A format registers its row in its
// own file (init); formats without a row use the OpenPAI/MPIJob rule above.
var hostNamers = map[jobs.Format]func(job *jobs.Job, k int, idx string) []string{}

// ssh defines the emulation's variables for an ssh role.
func (b *builder) ssh() {
	roles := SSHRoles(b.job)
	if roles == nil || !roles[b.self] {
		return
	}
	var entries []expr
	for k, r := range b.job.Roles {
		if !roles[k] {
			continue
		}
		for i := range r.Instances {
			if len(entries) > 0 {
				entries = append(entries, lit(","))
			}
			entries = append(entries, addr(k, i), lit(" "), port(k, i, SSHLabel, 0), lit(" "+strings.Join(SSHAliases(b.job, k, i), " ")))
		}
	}
	b.set(SSHHostsVar, cat(entries...))
	b.sshRoleVars()
	const mark = "\x00"
	first := sshAliasParts(b.job, b.self, mark)[0]
	pre, post, _ := strings.Cut(first, mark)
	if pre == first {
		b.setLit(SSHSelfVar, first) // the launcher: no index
		return
	}
	b.set(SSHSelfVar, cat(lit(pre), index(0), lit(post)))
}

// sshRoleVars are the role-static settings: the PAI plugin's barrier and
// user keys; an MPIJob launcher's barrier (it waits for its workers, as
// launcherCreationPolicy WaitForWorkersReady does, so mpirun never meets
// an sshd still starting) and every MPIJob task's hostfile.
func (b *builder) sshRoleVars() {
	j, r := b.job, b.job.Roles[b.self]
	if trainerMPIJob(j) {
		if r.Name == j.Extras.Trainer.TrainerRole {
			b.setLit(SSHBarrierVar, strconv.Itoa(DefaultSSHBarrier))
		}
		b.set(MPIDirVar, b.mpiDirExpr())
		b.setLit(MPIHostfileVar, strings.ReplaceAll(strings.TrimSuffix(trainerHostfile(j), "\n"), "\n", ","))
		return
	}
	if j.Source.Format == jobs.FormatMPIJob {
		if strings.EqualFold(r.ReplicaType, "launcher") {
			b.setLit(SSHBarrierVar, strconv.Itoa(DefaultSSHBarrier))
		}
		// every pod had the ConfigMap: OpenMPI's daemons on the workers
		// get the launcher's rsh agent path and check it exists there
		b.set(MPIDirVar, b.mpiDirExpr())
		b.setLit(MPIHostfileVar, strings.ReplaceAll(strings.TrimSuffix(Hostfile(j), "\n"), "\n", ","))
		return
	}
	if j.Source.Format == jobs.FormatVolcano {
		b.volcanoSSHVars()
		return
	}
	var keys []string
	barrier := 0
	for _, p := range j.Extras.RuntimePlugins {
		if p.Plugin != "ssh" || !pluginCovers(p, r.Name) {
			continue
		}
		if p.Parameters["sshbarrier"] == true {
			barrier = DefaultSSHBarrier
			if m, ok := number(p.Parameters["sshbarrierTimeout"]); ok && m > 0 {
				barrier = int(m * 60)
			}
		}
		if u, ok := p.Parameters["userssh"].(map[string]any); ok {
			if v, ok := u["value"].(string); ok && strings.TrimSpace(v) != "" {
				keys = append(keys, strings.TrimSpace(v))
			}
		}
	}
	if barrier > 0 {
		b.setLit(SSHBarrierVar, strconv.Itoa(barrier))
	}
	if len(keys) > 0 {
		b.setLit(SSHUserKeysVar, strings.Join(keys, "\n"))
	}
}

func pluginCovers(p jobs.RuntimePlugin, role string) bool {
	if len(p.TaskRoles) == 0 {
		return true
	}
	for _, r := range p.TaskRoles {
		if r == role {
			return true
		}
	}
	return false
}

// number reads a YAML/JSON number (int, int64, float64, or a decimal string).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// sshdCommandRE finds an sshd started as a program (a word ending in sshd,
// after a separator or a path), as MPIJob workers' commands do
// (`/usr/sbin/sshd -De`, `mkdir -p /run/sshd; /usr/sbin/sshd -D`).
var sshdCommandRE = regexp.MustCompile(`(?:^|[\s;&|(/])sshd(?:\s|$)`)

// SSHIdle reports whether role k's own command is replaced by the ssh
// emulation's sshd: an MPIJob worker whose command starts an sshd (the
// image's, on port 22 with the image's keys, which the operator's secret
// filled in; jobshift's sshd takes its place on the task's port), or that
// has no command (the kubexec generations ran `sleep 365d` in it, or the
// image's entrypoint, which was an sshd in v2beta1 images). A rule of the
// input format, so it lives here and drivers read it from the plan.
func SSHIdle(job *jobs.Job, k int) bool {
	r := job.Roles[k]
	rs := SSHRoles(job)
	if trainerMPIJob(job) {
		return rs != nil && rs[k] && trainerSSHIdle(job, r)
	}
	if job.Source.Format == jobs.FormatVolcano && rs != nil && rs[k] {
		return volcanoSSHIdle(r)
	}
	if job.Source.Format != jobs.FormatMPIJob || !strings.EqualFold(r.ReplicaType, "worker") || rs == nil || !rs[k] {
		return false
	}
	c := r.Command
	switch c.Kind {
	case jobs.CommandArgv:
		if len(c.Command) == 0 && len(c.Args) == 0 {
			return true
		}
		return sshdCommandRE.MatchString(strings.Join(append(append([]string(nil), c.Command...), c.Args...), " "))
	default:
		return sshdCommandRE.MatchString(c.Script)
	}
}
