package translate

import (
	"fmt"
	"sync"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// Compiled is everything about a plan that does not depend on the target,
// worked out once (Build) so that no driver works it out again, and no
// driver needs to know the input format: the completion policy, the
// contract options, the processes of a task, and per role how the platform
// launched the command and which ports it needs.
type Compiled struct {
	// Policy is the job's completion policy (kind resolved).
	Policy completion.Policy
	// Contract are the options every contract evaluation uses (the one
	// place they are built); set Process for a UAI ps process.
	Contract contract.Options
	// Processes every task runs (contract.Processes): [main], or [main,
	// ps] for a multi-node UAI job.
	Processes []string
	// WorkDir: PAI_WORK_DIR is part of the contract, so every target
	// exports it (contract.WorkDirExport) right before the user command.
	WorkDir bool
	// SSH: some role runs the ssh emulation (OpenPAI's ssh plugin,
	// mpi-operator's ssh set-up; drivers/sshemu), see RolePlan.SSH.
	SSH bool
	// Roles, in job order.
	Roles []RolePlan

	// contracts: the job's contract compiled per options (Contract).
	mu        sync.Mutex
	contracts map[string]contractOf
}

type contractOf struct {
	c   *contract.Compiled
	err error
}

// Contract is the plan's environment contract compiled with opts (a
// target's ContractOn or ContractFor), compiled once per options and
// kept with the rest, so that no driver compiles it again per render.
func (p *Plan) Contract(opts contract.Options) (*contract.Compiled, error) {
	c := p.Compiled()
	key := fmt.Sprintf("%#v", opts)
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.contracts[key]; ok {
		return got.c, got.err
	}
	cc, err := contract.Compile(p.Job, opts)
	if c.contracts == nil {
		c.contracts = map[string]contractOf{}
	}
	c.contracts[key] = contractOf{cc, err}
	return cc, err
}

// RolePlan is the target-independent part of one role.
type RolePlan struct {
	Name   string
	Launch Launch
	// Ports are the labels a topology must give every task of the role
	// (contract.PortLabels), in order, with container ports.
	Ports []PortPlan
	// SSH: the role's tasks run the ssh emulation (contract.SSHRoles);
	// SSHIdle: its own command is replaced by the emulation's sshd
	// (contract.SSHIdle: an MPIJob worker that only started an sshd).
	SSH, SSHIdle bool
	// SSHFiles is where the platform put the job's ssh key pair and
	// client config ("" = nowhere; contract.SSHFiles: a TrainJob's
	// mpi.sshAuthMountPath, Volcano's ssh plugin's --ssh-key-file-path):
	// the target places a private writable directory there that the
	// emulation fills (drivers/sshemu FilesVar).
	SSHFiles string
}

// PortPlan is one port label of a role.
type PortPlan struct {
	jobs.Port
	// Container is the first of the label's fixed container ports
	// (LeinaoPAI's 10001..10003, contract.LeinaoPorts): the task binds
	// those inside its container and the target maps host ports onto
	// them; 0 = the task binds its host ports itself.
	Container int
}

// Compiled returns the compiled part of the plan, worked out once and
// kept. It never goes stale: the plan's fields are exported and a caller
// may change the job, the contracts or the user after Build (tests do,
// to vary one thing), so each call compares a fingerprint of everything
// compile reads (see fingerprintOf: a hash of the job's canonical
// encoding, O(size of the job file), independent of the task count) and
// compiles again when it changed. Safe for concurrent use.
func (p *Plan) Compiled() *Compiled {
	p.mu.Lock()
	if p.held > 0 && p.compiled != nil {
		defer p.mu.Unlock()
		return p.compiled
	}
	p.mu.Unlock()
	sum, ok := fingerprintOf(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.compiled == nil || !ok || sum != p.sum {
		p.compiled, p.sum = compile(p), sum
	}
	return p.compiled
}

// Hold keeps the compiled plan as it is until release is called: in
// between, Compiled skips the fingerprint, which costs O(size of the job)
// per call, so a driver asking once per group of a job of 300 roles paid
// O(roles²) for it (issue 42). The holder promises not to change the plan
// until it releases it; holds nest and may be concurrent.
func (p *Plan) Hold() (release func()) {
	p.Compiled()
	p.mu.Lock()
	p.held++
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.held--
			p.mu.Unlock()
		})
	}
}

func compile(p *Plan) *Compiled {
	job := p.Job
	opts := contract.Options{User: p.User, Contracts: p.Contracts, Exact: p.resolved}
	if len(p.Contracts) == 0 && !p.resolved {
		opts.Contracts = job.Contracts
	}
	ssh := contract.SSHRoles(job)
	c := &Compiled{Policy: completion.PolicyOf(job), Contract: opts,
		Processes: contract.Processes(job, opts), WorkDir: contract.NeedsWorkDir(job, opts), SSH: ssh != nil}
	for k, r := range job.Roles {
		rp := RolePlan{Name: r.Name, Launch: launchOf(r, c.WorkDir)}
		if ssh != nil && ssh[k] {
			rp.SSH, rp.SSHIdle, rp.SSHFiles = true, contract.SSHIdle(job, k), contract.SSHFiles(job, k)
		}
		for _, port := range contract.PortLabels(job, k, opts) {
			pp := PortPlan{Port: port}
			if port.Implicit && port.Label == contract.LeinaoLabel {
				pp.Container = contract.LeinaoPorts[0]
			}
			rp.Ports = append(rp.Ports, pp)
		}
		c.Roles = append(c.Roles, rp)
	}
	return c
}

// Role is the compiled role named name (nil when the job has none).
func (c *Compiled) Role(name string) *RolePlan {
	for i := range c.Roles {
		if c.Roles[i].Name == name {
			return &c.Roles[i]
		}
	}
	return nil
}

// ContractFor is Contract for one process of a task.
func (c *Compiled) ContractFor(process string) contract.Options {
	o := c.Contract
	o.Process = process
	return o
}

// ContractOn is Contract on a target that runs the ssh emulation
// (drivers/sshemu) when the plan uses it, and delivers the mpi contract's
// files in mpiDir ("" = contract.MPIDefaultDir).
func (c *Compiled) ContractOn(mpiDir string) contract.Options {
	o := c.Contract
	o.SSH, o.MPIDir = c.SSH, mpiDir
	return o
}

// HasContract reports whether contract name applies to the plan.
func (c *Compiled) HasContract(name string) bool {
	for _, x := range c.Contract.Contracts {
		if x == name {
			return true
		}
	}
	return false
}

// Origin names the job's input format ("pai-v2", "tfjob") for comments,
// meta and messages in artifacts: text for people and tools, which no
// driver branches on (the rules it implies are in Compiled).
func (p *Plan) Origin() string { return string(p.Job.Source.Format) }
