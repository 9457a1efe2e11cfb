package trainer

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"go.yaml.in/yaml/v3"
)

// policy applies the ML policy's EnforceMLPolicy (node counts, the
// trainer port) and records what its contract needs.
func (b *builder) policy() {
	rt, job := b.rt, b.job
	tr := b.trainerRole()
	t := job.Extras.Trainer
	t.Runtime, t.Policy, t.Subdomain = rt.kind+" "+rt.name+" ("+rt.source+")", rt.policy.kind, rt.subdomain
	if t.Subdomain == "" {
		t.Subdomain = job.Name // jobset.go: the JobSet's own name unless network.subdomain
	}
	switch rt.policy.kind {
	case "mpi":
		b.mpi(t)
		return
	case "torch":
		job.Contracts = []string{jobs.ContractTrainerTorch}
		b.reserved("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT")
	case "jax":
		job.Contracts = []string{jobs.ContractTrainerJAX}
	case "xgboost":
		job.Contracts = []string{jobs.ContractTrainerXGBoost}
		b.reserved("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER")
	}
	if tr == nil {
		if rt.policy.kind != "" {
			rt.f.errorf(rt.policy.node, "No trainer job", "The runtime's %s policy applies to the replicated job labelled %s: trainer; none is. Label the trainer's replicated job.", rt.policy.kind, ancestorLabel)
		}
		return
	}
	// torch.go / jax.go / xgboost.go / plainml.go: trainer.numNodes sets
	// the trainer job's pod count.
	if b.numNodes > 0 {
		tr.Instances, tr.InstancesPos = b.numNodes, b.tj.f.pos(b.numNodesNode)
	}
	t.TrainerRole, t.NumNodes, t.EnvRoles = tr.Name, tr.Instances, []string{tr.Name}
	t.GPUPerNode = b.gpuPerNode()
	if rt.policy.kind == "" {
		return
	}
	// The plugins add containerPort 29500 (constants.ContainerTrainerPort)
	// to the trainer container for the headless service.
	tr.Ports = append(tr.Ports, jobs.Port{Label: "trainer", Count: 1, Number: trainerPort, Implicit: true})
	if rt.policy.kind == "torch" {
		t.NprocPerNode = b.torchNproc(tr)
		t.Torchtune = isTorchtune(tr.Command.Command) && b.tj.trainer.get("command") != nil
		if t.Torchtune {
			b.torchtune(t, tr)
		}
		for _, et := range rt.policy.envTargets {
			b.envTarget(t, et)
		}
	}
}

// envTarget adds a torch envInjection target's role (torch.go Validate:
// the target job and container must exist in the runtime).
func (b *builder) envTarget(t *jobs.Trainer, et envTarget) {
	r := b.job.Role(et.job)
	if r == nil {
		b.rt.f.errorf(et.node, "envInjection target not found", "envInjection target podSet %q is not a replicated job of the runtime; Trainer rejects the TrainJob.", et.job)
		return
	}
	for _, name := range t.EnvRoles {
		if name == r.Name {
			return
		}
	}
	t.EnvRoles = append(t.EnvRoles, r.Name)
	if len(et.containers) > 1 {
		b.rt.f.warnf(et.node, "envInjection into one container", "jobshift runs one process per task; the PET_* variables reach its main container only.")
	}
}

// torchNproc is PET_NPROC_PER_NODE (torch.go EnforceMLPolicy @v2.3.0):
// trainer.numProcPerNode, else "auto"; "auto" without GPUs becomes the
// CPU count per node, max(1, requests.cpu else limits.cpu) of
// resourcesPerNode (else of the runtime's trainer container). The v2.0
// runtime field torch.numProcPerNode is the default before "auto", and its
// "cpu" is the CPU count (torch.go @v2.0.0).
func (b *builder) torchNproc(tr *jobs.Role) string {
	v := b.nproc
	if v == "" && b.rt.policy.torchProc != nil {
		v = scalar(b.rt.policy.torchProc)
	}
	if v == "" {
		v = "auto"
	}
	if (v == "auto" && b.gpuPerNode() == 0) || v == "cpu" {
		return strconv.Itoa(max(1, b.cpuPerNode()))
	}
	return v
}

// resourcesPerNode is the node's ResourceRequirements as the plugins see
// them: trainer.resourcesPerNode when set, else the runtime's trainer
// container's (runtime.ExtractResourcePerNodeFromRuntime @v2.3.0).
func (b *builder) resourcesPerNode() *yaml.Node {
	if b.resNode != nil {
		return b.resNode
	}
	for _, rj := range b.rt.rjobs {
		if rj.ancestor != ancestorTrainer {
			continue
		}
		for _, c := range yamlSeq(child(rj.pod, "spec", "containers")) {
			if scalar(child(c, "name")) == nodeName {
				return child(c, "resources")
			}
		}
	}
	return nil
}

// cpuPerNode is getNumCPUPerNode (torch.go @v2.3.0): requests.cpu, else
// limits.cpu, rounded up to whole CPUs (resource.Quantity.Value), 0 when
// neither is set.
func (b *builder) cpuPerNode() int {
	res := b.resourcesPerNode()
	for _, which := range []string{"requests", "limits"} {
		if q := quantity(child(res, which, "cpu")); q != nil && q.Sign() > 0 {
			return ceil(q)
		}
	}
	return 0
}

// gpuPerNode is runtime.GetNumGPUPerNode (pkg/runtime/runtime.go @v2.3.0):
// the first resource whose name contains "gpu" (any case) in requests,
// else in limits, rounded up; 0 when none.
func (b *builder) gpuPerNode() int {
	res := b.resourcesPerNode()
	for _, which := range []string{"requests", "limits"} {
		list := child(res, which)
		if list == nil || list.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(list.Content); i += 2 {
			if strings.Contains(strings.ToLower(list.Content[i].Value), "gpu") {
				if q := quantity(list.Content[i+1]); q != nil && q.Sign() > 0 {
					return ceil(q)
				}
				break
			}
		}
	}
	return 0
}

func ceil(q *big.Rat) int {
	n := new(big.Int).Quo(q.Num(), q.Denom())
	if new(big.Rat).SetInt(n).Cmp(q) < 0 {
		n.Add(n, big.NewInt(1))
	}
	if n.IsInt64() && n.Int64() < 1<<20 {
		return int(n.Int64())
	}
	return 1 << 20
}

func quantity(n *yaml.Node) *big.Rat {
	s := scalar(n)
	if s == "" {
		return nil
	}
	q, err := kubeflow.ParseQuantity(s)
	if err != nil {
		return nil
	}
	return q
}

// mpi is mpi.go EnforceMLPolicy and Validate @v2.3.0: the node job has
// numNodes pods (numNodes-1, at least 1, when the launcher is a node
// too); numProcPerNode is trainer.numProcPerNode, else the policy's, which
// becomes the GPU count when it is 1 and a node has more GPUs; every node
// and the launcher run an sshd for mpirun.
func (b *builder) mpi(t *jobs.Trainer) {
	rt, job := b.rt, b.job
	job.Contracts = []string{jobs.ContractTrainerMPI}
	b.reserved("OMPI_MCA_orte_default_hostfile", "OMPI_MCA_plm_rsh_args", "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots")
	m := rt.policy.mpi
	node, launcher := job.Role(nodeName), job.Role(launcherName)
	if b.numNodes >= 2 && rt.policy.launcherNode && (node == nil || launcher == nil) {
		b.tj.f.errorf(b.numNodesNode, "numNodes needs a launcher and a node job", "trainer.numNodes must be 1 when an MPI runtime with runLauncherAsNode does not have both a launcher and a node replicated job; Trainer rejects the TrainJob.")
	}
	if node != nil && b.numNodes > 0 {
		n := b.numNodes
		if rt.policy.launcherNode {
			n = max(n-1, 1)
		}
		node.Instances, node.InstancesPos = n, b.tj.f.pos(b.numNodesNode)
	}
	switch {
	case b.nproc != "":
		if v, err := strconv.Atoi(b.nproc); err == nil {
			m.SlotsPerWorker = v
		}
	case m.SlotsPerWorker == 1:
		if g := b.gpuPerNode(); g > 1 {
			m.SlotsPerWorker = g
		}
	}
	job.Extras.MPI = &m
	job.Completion.Kind = jobs.CompletionJobSet
	for _, r := range []*jobs.Role{launcher, node} {
		if r != nil {
			r.Ports = append(r.Ports, jobs.Port{Label: "ssh", Count: 1, Number: 22, Implicit: true})
		}
	}
	if launcher != nil && node != nil {
		launcher.DependsOn = readyByBarrier(launcher.DependsOn, node.Name)
	}
	if launcher != nil {
		t.TrainerRole, t.NumNodes = launcher.Name, launcher.Instances
		t.EnvRoles = []string{launcher.Name}
		launcher.Files = append(launcher.Files, jobs.File{Path: "/etc/mpi/hostfile", Content: Hostfile(job), Mode: 0o444, Pos: m.Pos})
	}
	if node != nil && b.numNodes > 0 && launcher != nil {
		t.NumNodes = node.Instances
	}
}

// Hostfile is the MPI plugin's hostfile of job (jobs.Trainer.MPIHostfile).
func Hostfile(job *jobs.Job) string { return job.Extras.Trainer.MPIHostfile(job) }

// readyByBarrier drops the launcher's "node Ready" dependency (the MPI
// runtimes' dependsOn, manifests/base/runtimes/deepspeed_distributed.yaml
// @v2.3.0): the ssh emulation the launcher and nodes run makes the
// launcher wait until every node's sshd answers (contract.SSHBarrierVar),
// which is what Ready gave mpirun on Kubernetes, on every target.
func readyByBarrier(deps []jobs.Dependency, node string) []jobs.Dependency {
	var out []jobs.Dependency
	for _, d := range deps {
		if d.Role == node && d.Status == jobs.DependsReady {
			continue
		}
		out = append(out, d)
	}
	return out
}
