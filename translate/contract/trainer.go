package contract

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// The Kubeflow Trainer v2 contracts: the variables each ML-policy plugin's
// EnforceMLPolicy adds to the trainer container (kubeflow/trainer
// pkg/runtime/framework/plugins/{torch,mpi,jax,xgboost}/*.go @v2.3.0; the
// reader, jobs/trainer, applied the TrainJob to its runtime and recorded
// the result in jobs.Job.Extras.Trainer). Ranks are the JobSet completion
// index of the pod in its Job (the task's index: the trainer job has one
// Job, builder.go sets its replicas to 1). Where upstream names the first
// trainer pod by its headless-service name (<job>-node-0-0.<job>) the
// value is that name where the target resolves it (Options.HostNames,
// HostsVar), else that task's address; the port is the task's "trainer" port
// (29500 where tasks have their own address, ContainerTrainerPort).
// The plain policy (plainml.go) adds nothing but trainer.env, which the
// reader put in the role's env: it has no contract.

// trainerLabel is the port label of the trainer's 29500.
const trainerLabel = "trainer"

// HostsVar lists the peers a task reaches by a platform name
// (Options.HostNames): entries "ADDR NAME VAR..." joined by ','. The task
// view's wrapper (drivers/taskns) adds "ADDR NAME" to the task's
// /etc/hosts; where the node gives it no namespace it puts ADDR in place
// of the NAME that starts each VAR's value instead, so the task still
// reaches the peer, by its address.
const HostsVar = "JOBSHIFT_HOSTS"

// TrainerMasterName is the name the Trainer plugins give the first pod of
// the trainer job, under the JobSet's headless service: <job>-node-0-0.<job>
// (torch.go PET_MASTER_ADDR, jax.go JAX_COORDINATOR_ADDRESS, xgboost.go
// DMLC_TRACKER_URI, @v2.3.0; constants.Node and the TrainJob's name, not
// the network's subdomain).
func TrainerMasterName(job string) string { return job + "-node-0-0." + job }

// NamesRole is the role whose tasks resolve platform names where
// Options.HostNames is set: the one that gets the trainer policy's master
// address ("" = none; the target's choice of view for that role decides).
func NamesRole(j *jobs.Job) string {
	if j == nil || j.Source.Format != jobs.FormatTrainJob || j.Extras.Trainer == nil {
		return ""
	}
	return j.Extras.Trainer.TrainerRole
}

// trainerMasterAddr is the master's address as the plugins wrote it: its
// name where the target resolves names (recorded for HostsVar under the
// variable that holds it), else node 0's address.
func (b *builder) trainerMasterAddr(mk int, vars *[]string, name string) expr {
	if !b.opts.HostNames {
		return addr(mk, 0)
	}
	*vars = append(*vars, name)
	return lit(TrainerMasterName(b.job.Name))
}

// trainerHosts sets HostsVar for the variables that hold the master's name.
func (b *builder) trainerHosts(mk int, vars []string) {
	if len(vars) == 0 {
		return
	}
	b.set(HostsVar, cat(addr(mk, 0), lit(" "+TrainerMasterName(b.job.Name)+" "+strings.Join(vars, " "))))
}

func init() {
	hostNamers[jobs.FormatTrainJob] = func(job *jobs.Job, k int, idx string) []string {
		t := job.Extras.Trainer
		if t == nil {
			return []string{job.Name + "-" + job.Roles[k].Name + "-0-" + idx}
		}
		host, fqdn := t.PodHost(job, job.Roles[k].Name, idx)
		return []string{host, fqdn}
	}
}

// trainerEnvRole reports whether role k gets the ML policy's variables.
func (b *builder) trainerEnvRole() bool {
	t := b.job.Extras.Trainer
	if t == nil {
		return false
	}
	for _, n := range t.EnvRoles {
		if n == b.job.Roles[b.self].Name {
			return true
		}
	}
	return false
}

// trainerMaster is the trainer role's position (task 0 is the master).
func trainerMaster(j *jobs.Job) int {
	if j.Extras.Trainer == nil {
		return -1
	}
	return roleIndex(j, j.Extras.Trainer.TrainerRole)
}

// trainerTorch is torch.go EnforceMLPolicy: PET_NNODES, PET_NPROC_PER_NODE,
// PET_NODE_RANK (completion index), then PET_MASTER_ADDR and
// PET_MASTER_PORT — except for torchtune (`tune run`), whose rendezvous
// endpoint is a command argument; envInjection targets always get all five.
func (b *builder) trainerTorch() {
	if !b.trainerEnvRole() {
		return
	}
	t, mk := b.job.Extras.Trainer, trainerMaster(b.job)
	b.setLit("PET_NNODES", strconv.Itoa(t.NumNodes))
	b.setLit("PET_NPROC_PER_NODE", t.NprocPerNode)
	b.set("PET_NODE_RANK", index(0))
	if t.Torchtune && b.self == mk {
		if b.opts.HostNames && t.NumNodes > 1 {
			// tune run's --rdzv_endpoint names node 0 (torch.go @v2.3.0):
			// its peers resolve the name through the task view
			b.set(HostsVar, cat(addr(mk, 0), lit(" "+TrainerMasterName(b.job.Name))))
		}
		return
	}
	var vars []string
	b.set("PET_MASTER_ADDR", b.trainerMasterAddr(mk, &vars, "PET_MASTER_ADDR"))
	b.set("PET_MASTER_PORT", port(mk, 0, trainerLabel, 0))
	b.trainerHosts(mk, vars)
}

// trainerJAX is jax.go EnforceMLPolicy: JAX_NUM_PROCESSES (one per node),
// JAX_PROCESS_ID (completion index), JAX_COORDINATOR_ADDRESS (node 0).
func (b *builder) trainerJAX() {
	if !b.trainerEnvRole() {
		return
	}
	t, mk := b.job.Extras.Trainer, trainerMaster(b.job)
	b.setLit("JAX_NUM_PROCESSES", strconv.Itoa(t.NumNodes))
	b.set("JAX_PROCESS_ID", index(0))
	var vars []string
	b.set("JAX_COORDINATOR_ADDRESS", cat(b.trainerMasterAddr(mk, &vars, "JAX_COORDINATOR_ADDRESS"), lit(":"), port(mk, 0, trainerLabel, 0)))
	b.trainerHosts(mk, vars)
}

// trainerXGBoost is xgboost.go EnforceMLPolicy: the tracker on node 0,
// DMLC_TASK_ID the completion index, DMLC_NUM_WORKER nodes × GPUs per
// node (1 without GPUs).
func (b *builder) trainerXGBoost() {
	if !b.trainerEnvRole() {
		return
	}
	t, mk := b.job.Extras.Trainer, trainerMaster(b.job)
	var vars []string
	b.set("DMLC_TRACKER_URI", b.trainerMasterAddr(mk, &vars, "DMLC_TRACKER_URI"))
	b.set("DMLC_TRACKER_PORT", port(mk, 0, trainerLabel, 0))
	b.set("DMLC_TASK_ID", index(0))
	b.setLit("DMLC_NUM_WORKER", strconv.Itoa(t.NumNodes*max(1, t.GPUPerNode)))
	b.trainerHosts(mk, vars)
}

// trainerMPI is mpi.go EnforceMLPolicy for OpenMPI: the launcher's node
// container gets OMPI_MCA_orte_default_hostfile (/etc/mpi/hostfile, or the
// directory the target delivers the hostfile to),
// OMPI_MCA_orte_keep_fqdn_hostnames, OMPI_MCA_orte_set_default_slots and
// OMPI_MCA_plm_rsh_args, in that order.
func (b *builder) trainerMPI() {
	if !b.trainerEnvRole() {
		return
	}
	m := mpiOf(b.job)
	b.set("OMPI_MCA_orte_default_hostfile", cat(b.mpiDirExpr(), lit("/hostfile")))
	b.setLit("OMPI_MCA_orte_keep_fqdn_hostnames", "true")
	b.setLit("OMPI_MCA_orte_set_default_slots", strconv.Itoa(m.SlotsPerWorker))
	b.setLit("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10")
}

// trainerMPIJob reports a TrainJob with the mpi ML policy: its launcher
// and node roles run the ssh emulation as an MPIJob's do.
func trainerMPIJob(j *jobs.Job) bool {
	return j.Source.Format == jobs.FormatTrainJob && j.Extras.Trainer != nil && j.Extras.Trainer.Policy == "mpi"
}

// trainerHostfile is the MPI hostfile (the reader also puts it on the
// launcher as a Role.Files entry at /etc/mpi/hostfile; file contents do
// not travel with a serialised job, so it is computed from the job).
func trainerHostfile(j *jobs.Job) string { return j.Extras.Trainer.MPIHostfile(j) }

// trainerSSHIdle: an MPI node whose command is an sshd (the deepspeed and
// mlx runtimes run `/usr/sbin/sshd -De -f ...`) is replaced by the
// emulation's sshd.
func trainerSSHIdle(j *jobs.Job, r *jobs.Role) bool {
	if !trainerMPIJob(j) || r.Name != "node" || (j.Extras.MPI != nil && j.Extras.MPI.RunLauncherAsWorker && r.Name == j.Extras.Trainer.TrainerRole) {
		return false
	}
	c := r.Command
	return sshdCommandRE.MatchString(strings.Join(append(append([]string(nil), c.Command...), c.Args...), " "))
}

func checkTrainer(j *jobs.Job, cs []string, bad func(jobs.Pos, string, string, ...any)) {
	for _, c := range []string{jobs.ContractTrainerTorch, jobs.ContractTrainerMPI, jobs.ContractTrainerJAX, jobs.ContractTrainerXGBoost} {
		if !has(cs, c) {
			continue
		}
		t := j.Extras.Trainer
		if t == nil || trainerMaster(j) < 0 {
			bad(j.NamePos, "Contract needs a TrainJob", "The %s contract is what a Kubeflow Trainer runtime gives its trainer; this job is not a TrainJob with such a runtime.", c)
			return
		}
		mk := trainerMaster(j)
		if c != jobs.ContractTrainerMPI && (j.Roles[mk].Instances < 1 || !hasLabel(j.Roles[mk], trainerLabel)) {
			bad(j.Roles[mk].Pos, "No trainer port", "Role %q needs at least one task and its trainer port (29500) for %s.", j.Roles[mk].Name, c)
		}
	}
}
