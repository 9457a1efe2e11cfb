package contracttest

import (
	"math/rand/v2"
	"strconv"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// trainerCase is a random Kubeflow Trainer v2 TrainJob as jobs/trainer
// builds it: a dataset initializer, the trainer's node job with its
// "trainer" port (torch, jax, xgboost), or for mpi a launcher and nodes
// with the ssh port and the launcher's hostfile.
func trainerCase(r *rand.Rand) Case {
	policy := pick(r, []string{"torch", "jax", "xgboost", "mpi"})
	n := 1 + r.IntN(12)
	t := &jobs.Trainer{Policy: policy, TrainerRole: "node", NumNodes: n, Subdomain: "tj",
		NprocPerNode: pick(r, []string{"auto", "1", "4"}), GPUPerNode: r.IntN(3), EnvRoles: []string{"node"}}
	init := &jobs.Role{Name: "dataset-initializer", ReplicaType: "dataset-initializer", Instances: 1}
	node := &jobs.Role{Name: "node", ReplicaType: "trainer", Instances: n,
		Ports: append([]jobs.Port{{Label: "trainer", Count: 1, Number: 29500, Implicit: true}}, userPorts(r, v2Names)...)}
	j := &jobs.Job{Name: "tj", Source: jobs.Source{Format: jobs.FormatTrainJob, Version: "trainer.kubeflow.org/v1alpha1"},
		Extras: jobs.Extras{Trainer: t}, Roles: []*jobs.Role{init, node}}
	// half of the cases run where names resolve (the task view): the
	// master's name and HostsVar instead of its address
	opts := contract.Options{HostNames: r.IntN(2) == 0}
	switch policy {
	case "torch":
		j.Contracts = []string{jobs.ContractTrainerTorch}
		t.Torchtune = r.IntN(4) == 0
		if r.IntN(2) == 0 {
			t.EnvRoles = append(t.EnvRoles, init.Name) // an envInjection target
		}
	case "jax":
		j.Contracts = []string{jobs.ContractTrainerJAX}
	case "xgboost":
		j.Contracts = []string{jobs.ContractTrainerXGBoost}
	case "mpi":
		ssh := jobs.Port{Label: "ssh", Count: 1, Number: 22, Implicit: true}
		node.Ports = []jobs.Port{ssh}
		launcher := &jobs.Role{Name: "launcher", ReplicaType: "trainer", Instances: 1, Ports: []jobs.Port{ssh}}
		j.Roles = []*jobs.Role{node, launcher}
		t.TrainerRole, t.EnvRoles = "launcher", []string{"launcher"}
		m := &jobs.MPI{SlotsPerWorker: 1 + r.IntN(8), Implementation: "OpenMPI", RshAgent: "ssh", RunLauncherAsWorker: r.IntN(2) == 0}
		j.Extras.MPI = m
		var hf string
		for i := range n {
			_, fqdn := t.PodHost(j, "node", strconv.Itoa(i))
			hf += fqdn + " slots=" + strconv.Itoa(m.SlotsPerWorker) + "\n"
		}
		launcher.Files = []jobs.File{{Path: "/etc/mpi/hostfile", Content: hf, Mode: 0o444}}
		j.Contracts = []string{jobs.ContractTrainerMPI}
		if r.IntN(2) == 0 {
			opts.MPIDir = pick(r, Hostile)
		}
		opts.SSH = n%2 == 0
	}
	return Case{Name: "trainer-" + policy, Job: j, Opts: opts}
}

// RandomTrainer is case n of the random Kubeflow Trainer jobs (Random's
// own mix keeps its numbering, which other tests rely on).
func RandomTrainer(seed uint64, n int) Case {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	c := trainerCase(r)
	c.Name = strconv.Itoa(n) + "-" + c.Name
	c.Topo = Topology(r, c.Job, c.Opts)
	return c
}
