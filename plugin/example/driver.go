// Package example is a small external jobshift driver, the template third
// parties copy: it writes one bash script per task (the task's whole
// environment contract, then its command as the source platform ran it)
// and runs the scripts as local processes on loopback.
//
// Copy this directory, rename the driver, and replace Render/Submit with
// what your target (PBS, LSF, Flux ...) needs; main.go stays as it is.
package example

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// Name is the driver name: the binary is jobshift-driver-example and users
// select it with -to example.
const Name = "example"

// Version of this driver.
const Version = "0.1.0"

// Driver runs tasks as bash scripts on this machine.
type Driver struct {
	// BaseDir holds one run directory per submitted job.
	BaseDir string
	// Warn receives what Render warns about (nil drops it). main.go
	// passes plugin.Warnings' Report, so the host counts and prints the
	// warnings with the job's own, located in the job file.
	Warn func(hcl.Diagnostics)

	mu   sync.Mutex
	runs map[string]*run
}

// New returns a driver keeping its runs under baseDir ("" = the system
// temporary directory).
func New(baseDir string) *Driver {
	if baseDir == "" {
		baseDir = filepath.Join(os.TempDir(), "jobshift-example")
	}
	return &Driver{BaseDir: baseDir, runs: map[string]*run{}}
}

var _ drivers.Driver = (*Driver)(nil)

func (d *Driver) Name() string { return Name }

// Render returns one script per task. It has no side effects, so ports are
// not probed: each task gets a deterministic window derived from the job
// name and its ordinal (as the Slurm driver does), which Submit then uses.
func (d *Driver) Render(_ context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	// Everything target-independent was worked out by translate.Build:
	// the contract options, the processes, each role's ports and launch
	// line. A driver only places tasks and runs them.
	c := p.Compiled()
	if len(c.Processes) > 1 {
		return nil, fmt.Errorf("the uai contract runs two processes per node; the example driver runs one: %w", drivers.ErrUnsupported)
	}
	topo := loopbackTopology(p.Job, c)
	a := &drivers.Artifact{MediaType: "text/x-shellscript"}
	// A refusal of the job is located diagnostics (diag.Error), every
	// role's at once; the CLI prints them as file:line:col: error: ...
	var refused hcl.Diagnostics
	for k, r := range p.Job.Roles {
		if d := unsupportedSteps(r); d != nil {
			refused = append(refused, d)
			continue
		}
		for i := 0; i < r.Instances; i++ {
			self := jobs.TaskRef{Role: r.Name, Index: i}
			env, err := contract.Eval(p.Job, topo, self, c.Contract)
			if err != nil {
				return nil, fmt.Errorf("%s-%d: %w", r.Name, i, err)
			}
			script, err := taskScript(r, c.Roles[k].Launch, env)
			if d, ok := diag.Of(err); ok {
				refused = append(refused, d...)
				break // one diagnostic per role
			} else if err != nil {
				return nil, err
			}
			a.Files = append(a.Files, drivers.File{Name: taskFile(self), Mode: 0o755, Data: []byte(script)})
		}
	}
	if refused.HasErrors() {
		return nil, &diag.Error{Diags: refused}
	}
	d.warnImages(p.Job)
	return a, nil
}

// warnImages says, once per role, that its image is not run: the task
// runs on this machine as it is.
func (d *Driver) warnImages(job *jobs.Job) {
	var ws hcl.Diagnostics
	for _, r := range job.Roles {
		if r.Image != "" {
			ws = append(ws, jobs.Warnf(r.ImagePos, "Image not run", "Role %s names image %s; the example driver runs the command on this machine, outside any image.", r.Name, r.Image))
		}
	}
	if len(ws) > 0 && d.Warn != nil {
		d.Warn(ws)
	}
}

func taskFile(t jobs.TaskRef) string { return fmt.Sprintf("%s-%d.sh", t.Role, t.Index) }

// loopbackTopology places every task on 127.0.0.1 with ports from a window
// of 2000 ports at a job-derived base in [20000, 60000), on this machine
// (its host name) as the node, at that address.
func loopbackTopology(job *jobs.Job, c *translate.Compiled) contract.Topology {
	node, err := os.Hostname()
	if err != nil {
		node = "localhost"
	}
	h := fnv.New32a()
	h.Write([]byte(job.Name))
	next := 20000 + int(h.Sum32()%20)*2000
	var topo contract.Topology
	for k, r := range job.Roles {
		rt := contract.RoleTopology{Name: r.Name}
		for i := 0; i < r.Instances; i++ {
			t := contract.TaskTopology{Addr: "127.0.0.1", Ports: map[string][]int{}, Node: node, NodeAddr: "127.0.0.1"}
			for _, p := range c.Roles[k].Ports {
				for k := 0; k < p.Count; k++ {
					if p.BeginAt > 0 {
						t.Ports[p.Label] = append(t.Ports[p.Label], p.BeginAt+k)
						continue
					}
					t.Ports[p.Label] = append(t.Ports[p.Label], next)
					next++
				}
			}
			rt.Tasks = append(rt.Tasks, t)
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

// taskScript is the bash script of one task: the contract exported with
// every value single-quoted, then the command the way its platform ran it
// (translate.Launch).
func taskScript(r *jobs.Role, l translate.Launch, env contract.Env) (string, error) {
	var b strings.Builder
	b.WriteString("#!/bin/bash\n# Generated by jobshift-driver-example.\n")
	for _, e := range r.Env {
		fmt.Fprintf(&b, "export %s=%s\n", e.Name, quote(e.Value))
	}
	for _, v := range env {
		if !isShellName(v.Name) {
			// bash cannot export such a name (PAI v1 roles may contain '.'
			// or '~'); env(1) can still hand it to the command.
			fmt.Fprintf(&b, "set -- \"$@\" %s\n", quote(v.Name+"="+v.Value))
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", v.Name, quote(v.Value))
	}
	if l.Entrypoint || len(l.Argv) == 0 {
		return "", refuse(r.Command.Pos, "No command", "Role %s has no command: the image's ENTRYPOINT is not known to this driver.", r.Name)
	}
	// WithWorkDir: PAI's runtime exported the working directory right
	// before the user command.
	b.WriteString("exec env \"$@\"")
	for _, a := range l.WithWorkDir(l.Argv) {
		b.WriteString(" " + quote(a))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// unsupportedSteps is the refusal of what a role asks for besides its
// command and environment that this driver does not do, or nil. A driver
// must refuse what it would otherwise drop: a task started without its init
// containers, its files or its turn in the step order does something else
// than the job says, and a Secret's value (jobs.EnvVar.Secret) must not be
// written into an artifact such as these scripts.
func unsupportedSteps(r *jobs.Role) *hcl.Diagnostic {
	if e, ok := r.SecretEnv(); ok {
		return jobs.Errorf(e.Pos, "Secret value not delivered", "Role %s: the variable %s takes its value from a Kubernetes Secret; the example driver would write it into the task's script. Use jobshift run -to local.", r.Name, e.Name)
	}
	if len(r.Init) > 0 {
		return jobs.Errorf(r.Init[0].Pos, "Init containers not run", "Role %s has init container %q; the example driver runs only the command. Use jobshift run -to local.", r.Name, r.Init[0].Name)
	}
	if len(r.DependsOn) > 0 {
		d := r.DependsOn[0]
		return jobs.Errorf(d.Pos, "Step order not kept", "Role %s starts only once role %s is %s; the example driver starts every task at once. Use jobshift run -to local.", r.Name, d.Role, d.Status)
	}
	if len(r.Files) > 0 {
		f := r.Files[0]
		return jobs.Errorf(f.Pos, "File not placed", "Role %s expects a file at %s; the example driver runs plain processes and places no files. Use jobshift run -to local.", r.Name, f.Path)
	}
	return nil
}

// refuse is a located refusal of the job.
func refuse(p jobs.Pos, summary, format string, args ...any) error {
	return &diag.Error{Diags: hcl.Diagnostics{jobs.Errorf(p, summary, format, args...)}}
}

// quote single-quotes s for bash: nothing inside is expanded.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func isShellName(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// Logs returns one task's output file (stdout and stderr together).
func (d *Driver) Logs(_ context.Context, h drivers.Handle, o drivers.LogOptions) (io.ReadCloser, error) {
	if o.Task == nil {
		return nil, fmt.Errorf("the example driver keeps logs per task: name one: %w", drivers.ErrUnsupported)
	}
	f, err := os.Open(filepath.Join(h.ID, fmt.Sprintf("%s-%d.log", o.Task.Role, o.Task.Index)))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("no task %s-%d in %s: %w", o.Task.Role, o.Task.Index, h.ID, drivers.ErrNotFound)
	}
	return f, err
}
