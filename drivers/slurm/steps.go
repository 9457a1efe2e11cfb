package slurm

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// checkSteps refuses, located, init containers (jobs.Role.Init), which the
// batch script does not run yet (the task would start without them), and
// variables whose value comes from a Kubernetes Secret (the batch script
// would hold the value).
func checkSteps(r *jobs.Role) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if e, ok := r.SecretEnv(); ok {
		diags = append(diags, jobs.Errorf(e.Pos, refused, "Role %s: the variable %s takes its value from a Kubernetes Secret; jobshift delivers such values locally (jobshift run -to local) but not yet on Slurm, where the value would be written into the batch script.", r.Name, e.Name))
	}
	if len(r.Init) == 0 {
		return diags
	}
	return append(diags, jobs.Errorf(r.Init[0].Pos, refused, "Role %s has init container %q (and %d more); jobshift runs init containers locally (jobshift run -to local) but not yet on Slurm, and would start the task without them. Fold them into the main command or run locally.", r.Name, r.Init[0].Name, len(r.Init)-1))
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
