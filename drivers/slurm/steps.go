package slurm

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// checkSteps refuses, located, init containers (jobs.Role.Init), which the
// batch script does not run yet: the task would start without them.
func checkSteps(r *jobs.Role) hcl.Diagnostics {
	if len(r.Init) == 0 {
		return nil
	}
	return hcl.Diagnostics{jobs.Errorf(r.Init[0].Pos, refused, "Role %s has init container %q (and %d more); jobshift runs init containers locally (jobshift run -to local) but not yet on Slurm, and would start the task without them. Fold them into the main command or run locally.", r.Name, r.Init[0].Name, len(r.Init)-1)}
}

// checkOrder refuses the step order (jobs.Role.DependsOn), which the batch
// script does not keep yet: every role's step starts at once.
func checkOrder(r *jobs.Role) hcl.Diagnostics {
	if len(r.DependsOn) == 0 {
		return nil
	}
	d := r.DependsOn[0]
	return hcl.Diagnostics{jobs.Errorf(d.Pos, refused, "Role %s starts only once role %s is %s; jobshift keeps that order locally (jobshift run -to local) but not yet on Slurm, where every role's step starts at once.", r.Name, d.Role, d.Status)}
}
