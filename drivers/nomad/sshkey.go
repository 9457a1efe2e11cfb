package nomad

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/sshemu"
)

// A job that uses the ssh emulation reads its key from the job's Variable
// (ssh.go). `jobshift run` writes it before submitting; a job converted
// and submitted with plain `nomad job run` has no jobshift process to do
// that, so when the site names its jobshift binary (nomad.helper, as for
// the finisher) every group gets a prestart task, SSHKeyTask, that runs
// `jobshift nomad-sshkey`: the first task of the job to get there makes
// the key and creates the Variable with check-and-set (index 0), every
// other one finds it there (or loses the race and reads the winner's).
// The main task's key template renders after prestart tasks end. The
// Variable is deleted with the verdict (watch.go, forgetSecrets). With
// ACLs on, the job's workload identity needs write on its own
// nomad/jobs/<job ID> (see docs/nomad/jobshift-finisher.policy.hcl).

// SSHKeyTask is the prestart task's name.
const SSHKeyTask = "sshkey"

func (r *renderer) sshKeyTask() *api.Task {
	return &api.Task{
		Name:       SSHKeyTask,
		Driver:     "raw_exec",
		Lifecycle:  &api.TaskLifecycle{Hook: "prestart"},
		Config:     map[string]any{"command": r.set.Helper, "args": []string{"nomad-sshkey"}},
		Identities: []*api.WorkloadIdentity{{Name: "default", Env: true}},
		Resources:  &api.Resources{CPU: new(20), MemoryMB: new(32)},
	}
}

// EnsureSSHKey makes sure job id's Variable holds the ssh job key; made
// reports whether this call made it.
func (d *Driver) EnsureSSHKey(ctx context.Context, id string) (made bool, err error) {
	c, err := d.Client()
	if err != nil {
		return false, err
	}
	path := VariablePath(id)
	for range 5 {
		v, _, err := c.Variables().Peek(path, (&api.QueryOptions{}).WithContext(ctx))
		if err != nil {
			return false, fmt.Errorf("reading Nomad Variable %s: %w", path, unavailable(err))
		}
		if v != nil && v.Items[sshKeyItem] != "" {
			return false, nil
		}
		priv, _, err := sshemu.NewKey()
		if err != nil {
			return false, err
		}
		wo := (&api.WriteOptions{}).WithContext(ctx)
		if v == nil {
			_, _, err = c.Variables().CheckedCreate(&api.Variable{Path: path, Items: api.VariableItems{sshKeyItem: string(priv)}}, wo)
		} else { // other secrets there already: add the key to them
			v.Items[sshKeyItem] = string(priv)
			_, _, err = c.Variables().CheckedUpdate(v, wo)
		}
		var conflict api.ErrCASConflict
		switch {
		case err == nil:
			return true, nil
		case errors.As(err, &conflict):
			continue // another task wrote first: use what it wrote
		default:
			return false, fmt.Errorf("writing the ssh job key to Nomad Variable %s: %w", path, unavailable(err))
		}
	}
	return false, fmt.Errorf("writing the ssh job key to Nomad Variable %s: it kept changing under us", path)
}
