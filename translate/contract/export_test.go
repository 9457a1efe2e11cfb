package contract

import "github.com/jobshift/jobshift/jobs"

// EvalUnfolded is the contract evaluated the plain way: role self's
// program built from scratch and every part of every value evaluated for
// the task, nothing shared or folded. The tests of Compile/Bind compare
// against it.
func EvalUnfolded(job *jobs.Job, topo Topology, self jobs.TaskRef, opts Options) (Env, error) {
	p, err := build(job, roleIndex(job, self.Role), opts)
	if err != nil {
		return nil, err
	}
	env := make(Env, 0, len(p.defs))
	for _, d := range p.defs {
		if d.first && self.Index != 0 {
			continue
		}
		env = append(env, Var{Name: d.name, Value: d.val.eval(topo, self.Index)})
	}
	return env, nil
}
