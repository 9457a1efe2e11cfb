package nomad

import "github.com/jobshift/jobshift/jobs"

// checkSteps refuses, located, what a role asks to run besides its command
// that the Nomad rendering does not run yet: init containers (jobs.Role.Init)
// and the step order (jobs.Role.DependsOn); and variables whose value comes
// from a Kubernetes Secret, which the job specification would show. Both are per-group concerns:
// a group's init steps would be one prestart task running them in order,
// and a group's dependencies a prestart task that waits for them (the way
// the barrier waits for the group services); until they exist the job is
// refused rather than started without them.
func (r *renderer) checkSteps(j *jobs.Job) {
	for _, role := range j.Roles {
		r.checkRoleSteps(role)
	}
}

func (r *renderer) checkRoleSteps(role *jobs.Role) {
	if e, ok := role.SecretEnv(); ok {
		r.errorf(e.Pos, "Secret value not delivered on Nomad", "Role %s: the variable %s takes its value from a Kubernetes Secret; jobshift delivers such values locally (jobshift run -to local) but not yet on Nomad, where the value would be written into the job specification. Nothing was rendered.", role.Name, e.Name)
	}
	if len(role.Init) > 0 {
		r.errorf(role.Init[0].Pos, "Init containers not run on Nomad", "Role %s has init container %q (and %d more); jobshift runs init containers locally (jobshift run -to local) but not yet on Nomad, and would start the task without them. Fold them into the main command or run locally.", role.Name, role.Init[0].Name, len(role.Init)-1)
	}
	if len(role.DependsOn) > 0 {
		d := role.DependsOn[0]
		r.errorf(d.Pos, "Step order not kept on Nomad", "Role %s starts only once role %s is %s; jobshift keeps that order locally (jobshift run -to local) but not yet on Nomad, where every group starts at once.", role.Name, d.Role, d.Status)
	}
}
