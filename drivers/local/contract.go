package local

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// contractOptions are the contract choices of a plan.
func contractOptions(p *translate.Plan) contract.Options {
	cs := p.Contracts
	if len(cs) == 0 {
		cs = p.Job.Contracts
	}
	return contract.Options{User: p.User, Contracts: cs}
}

// contractEnv is the oracle's environment for task self on topology topo:
// the single definition of what the source platform gave each task. process
// is contract.ProcessMain, or contract.ProcessPS for a UAI node's
// parameter-server process (see contract.Processes).
func contractEnv(p *translate.Plan, topo topology, self jobs.TaskRef, process string) ([]envVar, error) {
	var t contract.Topology
	for _, r := range p.Job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := range r.Instances {
			tn := topo[jobs.TaskRef{Role: r.Name, Index: i}]
			rt.Tasks = append(rt.Tasks, contract.TaskTopology{Addr: tn.Addr, Ports: tn.Ports})
		}
		t.Roles = append(t.Roles, rt)
	}
	opts := contractOptions(p)
	opts.Process = process
	env, err := contract.Eval(p.Job, t, self, opts)
	if err != nil {
		return nil, err
	}
	out := make([]envVar, len(env))
	for i, v := range env {
		out[i] = envVar{v.Name, v.Value}
	}
	return out, nil
}
