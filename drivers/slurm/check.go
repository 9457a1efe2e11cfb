package slurm

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers/taskns"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
)

// checkJob reports every reason the job cannot run on Slurm, located, before
// anything is rendered: the user fixes them all in one pass. The result is
// nil or a *diag.Error of kind ErrJob.
func checkJob(job *jobs.Job, c *translate.Compiled, st settings) error {
	if job == nil {
		return refuse(jobs.Pos{}, "No job.")
	}
	if len(job.Roles) == 0 {
		return refuse(jobPos(job), "The job has no roles.")
	}
	var diags hcl.Diagnostics
	for k, r := range job.Roles {
		rp := c.Roles[k]
		if rp.SSH && st.Container != "none" && r.Image != "" {
			// the sshd and the ssh sessions would run on the host,
			// outside the image that has the MPI
			diags = append(diags, jobs.Errorf(r.Pos, refused, "Role %s needs the ssh emulation (an MPIJob, or OpenPAI's ssh plugin), which jobshift runs on the host; run it with slurm { container = \"none\" }.", r.Name))
		}
		diags = append(diags, checkOrder(r)...)
		diags = append(diags, checkFiles(r, st)...)
		if rp.SSH && rp.SSHFiles != "" {
			if err := taskns.CheckPath(rp.SSHFiles); err != nil {
				diags = append(diags, jobs.Errorf(sshFilesPos(job, r), refused, "Role %s: the job's ssh files cannot be placed at %s: %v.", r.Name, rp.SSHFiles, err))
			}
		}
		if rp.SSHIdle {
			continue // runs only the emulation's sshd: its own command does not matter
		}
		diags = append(diags, checkSteps(r, st)...)
		diags = append(diags, checkRole(job, r, st)...)
	}
	return diag.Errors(ErrJob, diags)
}

// refused is the summary of every refusal, as users and scripts know it;
// the detail says what and the subject where.
const refused = "Job cannot run on Slurm"

// refuse is a one-diagnostic refusal of kind ErrJob.
func refuse(p jobs.Pos, format string, args ...any) error {
	return &diag.Error{Kind: ErrJob, Diags: hcl.Diagnostics{jobs.Errorf(p, refused, format, args...)}}
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

// checkRole rejects what a shell value cannot carry or Slurm cannot run.
func checkRole(job *jobs.Job, r *jobs.Role, st settings) hcl.Diagnostics {
	var diags hcl.Diagnostics
	bad := func(p jobs.Pos, format string, args ...any) {
		if p.IsZero() {
			p = r.Pos
		}
		diags = append(diags, jobs.Errorf(p, refused, format, args...))
	}
	vals := append([]string{r.Command.Script, r.WorkingDir}, r.Command.Command...)
	vals = append(vals, r.Command.Args...)
	for _, e := range r.Env {
		vals = append(vals, e.Name, e.Value)
	}
	for _, v := range vals {
		if strings.IndexByte(v, 0) >= 0 {
			bad(r.Pos, "Role %s: a command or environment value contains a NUL byte, which no process argument or environment can carry.", r.Name)
			break
		}
	}
	for _, e := range r.Env {
		if !shellName(e.Name) {
			bad(e.Pos, "Role %s: environment variable name %q cannot be set by the batch script (POSIX sh names are letters, digits and _); rename it or run the job on Nomad or locally.", r.Name, e.Name)
		}
	}
	c := r.Command
	switch c.Kind {
	case jobs.CommandEval, jobs.CommandBashScript, jobs.CommandArgv:
	default:
		bad(c.Pos, "Role %s: unknown command kind %q.", r.Name, c.Kind)
	}
	noCommand := c.Kind == jobs.CommandArgv && len(c.Command) == 0
	switch {
	case noCommand && r.Image == "":
		bad(c.Pos, "Role %s has no command and no image.", r.Name)
	case noCommand && len(c.Args) == 0 && st.Container != "apptainer":
		bad(c.Pos, "Role %s: the container has no `command`, so it runs the ENTRYPOINT of image %q, "+
			"which jobshift cannot know when tasks run on the host; add `command:`, or set slurm { container = \"apptainer\" } or \"pyxis\".", r.Name, r.Image)
	}
	if c.Kind == jobs.CommandBashScript && len(job.Secrets) > 0 && st.Container != "none" && r.Image != "" &&
		len((&secretTable{job: job, index: map[string]int{}}).split(c.Script)) > 1 {
		bad(c.Pos, "Role %s uses secrets, which jobshift renders on the host; run it with container = \"none\".", r.Name)
	}
	return diags
}

// sshFilesPos locates what asks for the ssh files: Volcano's ssh plugin,
// else the role (a TrainJob's runtime).
func sshFilesPos(job *jobs.Job, r *jobs.Role) jobs.Pos {
	if v := job.Extras.Volcano; v != nil && v.Plugin("ssh") != nil {
		return v.Plugin("ssh").Pos
	}
	return r.Pos
}
