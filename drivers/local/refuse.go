package local

import (
	"errors"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

// refusals collects every reason the local driver refuses a job, each as a
// located diagnostic, with the sentinels they match (errors.Is).
type refusals struct {
	kinds []error
	diags hcl.Diagnostics
}

func (r *refusals) add(kind error, p jobs.Pos, summary, format string, args ...any) {
	r.kinds = append(r.kinds, kind)
	r.diags = append(r.diags, jobs.Errorf(p, summary, format, args...))
}

// merge adds err's diagnostics (and kind); an error that carries none is
// returned as it is: it is not about the job.
func (r *refusals) merge(err error) error {
	d, ok := diag.Of(err)
	if !ok {
		return err
	}
	r.kinds = append(r.kinds, err)
	r.diags = append(r.diags, d...)
	return nil
}

// err is nil or one *diag.Error holding every refusal.
func (r *refusals) err() error {
	if !r.diags.HasErrors() {
		return nil
	}
	return &diag.Error{Kind: errors.Join(r.kinds...), Diags: r.diags}
}

// ErrSSHInDocker: the ssh emulation does not run inside -docker containers.
var ErrSSHInDocker = errors.New("ssh emulation not available with -docker")

// checkCommands reports every role whose command the local driver cannot
// run, before any port is probed.
func checkCommands(p *translate.Plan, docker bool) *refusals {
	r := &refusals{}
	for k, role := range p.Job.Roles {
		rp := p.Compiled().Roles[k]
		if docker && rp.SSH {
			r.merge(refuse(ErrSSHInDocker, role.Pos, "ssh between containers", "Role %q: its tasks reach each other over ssh (an MPIJob, or OpenPAI's ssh plugin), "+
				"which the local driver sets up for processes only, not yet inside containers; run it without -docker.", role.Name))
			continue
		}
		if docker && len(role.Init) > 0 {
			r.add(ErrInitDocker, role.Init[0].Pos, "Init containers with -docker", "Role %q has init containers, which the local driver runs as processes before the task's own, not yet as containers; run it without -docker.", role.Name)
		} else if _, err := initPlanOf(role, nil, ""); err != nil {
			r.merge(err)
		}
		if !docker && rp.SSHIdle {
			continue // runs only the emulation's sshd: its own command does not matter
		}
		if _, err := commandArgv(role, rp.Launch, docker); err != nil {
			r.merge(err)
		}
	}
	return r
}

// jobPos is where a refusal of the whole job points: its name, else its
// first role, else the file's start.
func jobPos(job *jobs.Job) jobs.Pos {
	switch {
	case !job.NamePos.IsZero():
		return job.NamePos
	case len(job.Roles) > 0 && !job.Roles[0].Pos.IsZero():
		return job.Roles[0].Pos
	}
	return jobs.Pos{File: job.Source.Path, Line: 1, Col: 1}
}
