package local

import (
	"path/filepath"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// bindContract compiles the plan's contract once for the attempt and binds
// it to topo: the job-wide part of every value is evaluated once, so each
// task's environment costs only its own variables. names: the tasks run
// under the task view, where peers' platform names resolve
// (contract.Options.HostNames).
func bindContract(p *translate.Plan, topo topology, runDir string, names bool) (*contract.Bound, error) {
	var t contract.Topology
	var node, nodeAddr string
	if contract.UsesNode(p.Job) {
		var err error
		if node, nodeAddr, err = thisNode(); err != nil {
			return nil, err
		}
	}
	for _, r := range p.Job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := range r.Instances {
			tn := topo[jobs.TaskRef{Role: r.Name, Index: i}]
			rt.Tasks = append(rt.Tasks, contract.TaskTopology{Addr: tn.Addr, Ports: tn.Ports, Node: node, NodeAddr: nodeAddr})
		}
		t.Roles = append(t.Roles, rt)
	}
	// the tasks share this host's file system
	opts := p.Compiled().ContractOn(filepath.Join(runDir, "mpi"))
	opts.HostNames = names
	c, err := p.Contract(opts)
	if err != nil {
		return nil, err
	}
	return c.Bind(t)
}

// contractEnv is the oracle's environment for task self: the single
// definition of what the source platform gave each task. process is
// contract.ProcessMain, or contract.ProcessPS for a UAI node's
// parameter-server process (see contract.Processes). kvs keeps, per role
// and process, the "NAME=VALUE" strings of the first task's variables: a
// later task whose variable at the same position has the same name and
// value uses that string (the OpenPAI contract gives every task every
// task's addresses and ports: N variables per task, the same for all).
func contractEnv(b *contract.Bound, kvs map[string][]string, self jobs.TaskRef, process string) ([]envVar, error) {
	env, err := b.Env(self, process)
	if err != nil {
		return nil, err
	}
	key := self.Role + "\x00" + process
	first, ok := kvs[key]
	if !ok {
		first = make([]string, len(env))
		for i, v := range env {
			first[i] = v.Name + "=" + v.Value
		}
		kvs[key] = first
	}
	out := make([]envVar, len(env))
	for i, v := range env {
		out[i] = envVar{Name: v.Name, Value: v.Value}
		if i < len(first) && sameKV(first[i], v.Name, v.Value) {
			out[i].kv = first[i]
		}
	}
	return out, nil
}

// sameKV reports whether kv is name=value.
func sameKV(kv, name, value string) bool {
	return len(kv) == len(name)+1+len(value) && kv[len(name)+1:] == value && kv[:len(name)] == name
}
