package local

import (
	"path/filepath"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// bindContract compiles the plan's contract once for the attempt and binds
// it to topo: the job-wide part of every value is evaluated once, so each
// task's environment costs only its own variables.
func bindContract(p *translate.Plan, topo topology, runDir string) (*contract.Bound, error) {
	var t contract.Topology
	for _, r := range p.Job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := range r.Instances {
			tn := topo[jobs.TaskRef{Role: r.Name, Index: i}]
			rt.Tasks = append(rt.Tasks, contract.TaskTopology{Addr: tn.Addr, Ports: tn.Ports})
		}
		t.Roles = append(t.Roles, rt)
	}
	// the tasks share this host's file system
	opts := p.Compiled().ContractOn(filepath.Join(runDir, "mpi"))
	c, err := contract.Compile(p.Job, opts)
	if err != nil {
		return nil, err
	}
	return c.Bind(t)
}

// contractEnv is the oracle's environment for task self: the single
// definition of what the source platform gave each task. process is
// contract.ProcessMain, or contract.ProcessPS for a UAI node's
// parameter-server process (see contract.Processes).
func contractEnv(b *contract.Bound, self jobs.TaskRef, process string) ([]envVar, error) {
	env, err := b.Env(self, process)
	if err != nil {
		return nil, err
	}
	out := make([]envVar, len(env))
	for i, v := range env {
		out[i] = envVar{v.Name, v.Value}
	}
	return out, nil
}
