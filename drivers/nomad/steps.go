package nomad

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// checkSteps refuses, located, what a role asks to run besides its command
// that the Nomad rendering cannot run as written: init containers the
// group's InitTask cannot run (initsteps.go). The step order is the
// shape's (decider.stepOrder).
func (r *renderer) checkSteps(j *jobs.Job) {
	for _, role := range j.Roles {
		r.checkRoleSteps(role)
	}
}

func (r *renderer) checkRoleSteps(role *jobs.Role) {
	if gs := r.shape.Group(role.Name); gs != nil && len(role.Init) > 0 {
		r.checkInit(role, gs)
	}
}

// checkInit refuses the init containers InitTask cannot run on the
// group's driver: on a host driver, one without a command (its image's
// ENTRYPOINT is unknown there) or with a NUL byte no process can carry;
// on a container driver, more than one (Nomad would run them at once),
// one without an image, or a value Nomad would interpolate (${...}).
func (r *renderer) checkInit(role *jobs.Role, gs *GroupShape) {
	if gs.Traits.Container && len(role.Init) > 1 {
		st := role.Init[1]
		r.errorf(st.Pos, "Init containers not run in order on Nomad", "Role %s has %d init containers; driver %s would run each in its own prestart task, and Nomad runs a group's prestart tasks at once, not in order. Run the role with a host driver (nomad.driver = \"raw_exec\" or \"exec\", which runs them in order in one task), merge them into one, or run locally.", role.Name, len(role.Init), gs.Driver)
		return
	}
	for _, st := range role.Init {
		words := append(append(append([]string{}, st.Command.Command...), st.Command.Args...), envValues(st.Env)...)
		switch {
		case !gs.Traits.Container && len(st.Command.Command) == 0:
			r.errorf(st.Command.Pos, "Init container without a command", "Role %s: the init container %q has no `command`, so it runs the ENTRYPOINT of image %q, which jobshift cannot know when driver %s runs it on the host; add `command:`.", role.Name, st.Name, st.Image, gs.Driver)
		case gs.Traits.Container && st.Image == "":
			r.errorf(st.Pos, "No image", "Role %s: the init container %q has no image, which driver %s needs.", role.Name, st.Name, gs.Driver)
		case gs.Traits.Container && anyInterpolated(words):
			r.errorf(st.Pos, "Init container value Nomad would rewrite", "Role %s: the init container %q has a command, argument or variable containing \"${...}\", which Nomad would replace in the task's driver config or env block; use a host driver (raw_exec, exec: jobshift then writes the step into a script byte for byte) or run locally.", role.Name, st.Name)
		case anyNUL(words):
			r.errorf(st.Pos, "Init container value with a NUL byte", "Role %s: the init container %q has a command or environment value with a NUL byte, which no process argument or environment can carry.", role.Name, st.Name)
		}
	}
}

func envValues(env []jobs.EnvVar) []string {
	out := make([]string, 0, 2*len(env))
	for _, e := range env {
		out = append(out, e.Name, e.Value)
	}
	return out
}

func anyInterpolated(ws []string) bool {
	for _, w := range ws {
		if interpolated(w) {
			return true
		}
	}
	return false
}

func anyNUL(ws []string) bool {
	for _, w := range ws {
		if strings.IndexByte(w, 0) >= 0 {
			return true
		}
	}
	return false
}
