package contract

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// Sentinel errors; every error this package returns wraps one of them.
var (
	// ErrUnknownContract: a contract name that does not exist.
	ErrUnknownContract = errors.New("unknown contract")
	// ErrJob: the job cannot have the contract (a missing port, a name the
	// platform would have rejected, ...).
	ErrJob = errors.New("job does not fit the contract")
	// ErrTopology: the topology does not match the job.
	ErrTopology = errors.New("topology does not match the job")
	// ErrTarget: the rendering target cannot carry a name or value.
	ErrTarget = errors.New("target cannot carry the contract")
)

// Options are the caller's choices.
type Options struct {
	// User for <user>~<job> naming (the caller resolves -user / $USER).
	User string
	// Contracts to render in order; empty = job.Contracts.
	Contracts []string
	// TFLegacyEvaluator selects the pre-v1.0.1 TF_CONFIG rule, evaluator
	// replicas not listed in the cluster, for a job whose apiVersion does
	// not already select it (TFJobs before kubeflow.org/v1 always get it).
	TFLegacyEvaluator bool
	// Process selects which of a UAI node's two processes the environment
	// is for: "" (ProcessMain, the training task) or ProcessPS. Only the uai
	// contract looks at it; see Processes.
	Process string
	// MPIDir is where the target delivers the mpi contract's files
	// (hostfile, kubexec.sh); "" = MPIDefaultDir (/etc/mpi).
	MPIDir string
}

// Processes a task can run, see Options.Process.
const (
	ProcessMain = ""
	ProcessPS   = "ps"
)

// WorkDirVar is exported by the task itself, see NeedsWorkDir.
const WorkDirVar = "PAI_WORK_DIR"

// Var is one environment variable.
type Var struct{ Name, Value string }

// Env is an environment in the order the platform wrote it.
type Env []Var

// Map returns e as a map.
func (e Env) Map() map[string]string {
	m := make(map[string]string, len(e))
	for _, v := range e {
		m[v.Name] = v.Value
	}
	return m
}

// Lookup returns the value of name.
func (e Env) Lookup(name string) (string, bool) {
	for _, v := range e {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// Strings returns e as NAME=VALUE strings (os/exec form).
func (e Env) Strings() []string {
	out := make([]string, len(e))
	for i, v := range e {
		out[i] = v.Name + "=" + v.Value
	}
	return out
}

// Error carries the diagnostics of a failed check; errors.Is matches its
// sentinel.
type Error struct {
	Kind  error
	Diags hcl.Diagnostics
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, d := range e.Diags {
		if i > 0 {
			b.WriteString("; ")
		}
		if r := d.Subject; r != nil && r.Filename != "" {
			fmt.Fprintf(&b, "%s:%d:%d: ", r.Filename, r.Start.Line, r.Start.Column)
		}
		b.WriteString(d.Summary)
		if d.Detail != "" {
			b.WriteString(": " + d.Detail)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Kind }

var errNoJob = &Error{Kind: ErrJob, Diags: hcl.Diagnostics{jobs.Errorf(jobs.Pos{}, "No job", "The contract needs a job.")}}

func fail(kind error, p jobs.Pos, summary, format string, args ...any) *Error {
	return &Error{Kind: kind, Diags: hcl.Diagnostics{jobs.Errorf(p, summary, format, args...)}}
}

// contracts resolves Options.Contracts (empty = the job's), dropping
// repeats.
func contracts(job *jobs.Job, opts Options) ([]string, error) {
	list := opts.Contracts
	if len(list) == 0 {
		list = job.Contracts
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range list {
		switch c {
		case jobs.ContractPAI, jobs.ContractPAIYarn, jobs.ContractLeinao, jobs.ContractTF, jobs.ContractUAI, jobs.ContractTorch, jobs.ContractMPI:
		default:
			return nil, fail(ErrUnknownContract, job.NamePos, "Unknown contract",
				"%q is not a contract; known are pai, pai-yarn, leinao, tf, uai, torch, mpi.", c)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func has(list []string, c string) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}

// NeedsWorkDir reports whether the contracts include PAI_WORK_DIR, which a
// driver must export as the task's working directory right before the user
// command (as PAI's runtime did with PAI_WORK_DIR=$(pwd)).
func NeedsWorkDir(job *jobs.Job, opts Options) bool {
	cs, err := contracts(job, opts)
	if err != nil {
		return false
	}
	return has(cs, jobs.ContractPAI) || has(cs, jobs.ContractPAIYarn) || has(cs, jobs.ContractLeinao)
}

// Processes lists the processes every task of the job runs: [ProcessMain]
// normally, [ProcessMain, ProcessPS] when the uai contract applies to a job
// of more than one node (each UAI node runs a parameter server next to its
// training task, both with the job's command; they differ only in
// TF_CONFIG).
func Processes(job *jobs.Job, opts Options) []string {
	cs, err := contracts(job, opts)
	if err == nil && has(cs, jobs.ContractUAI) && len(job.Roles) == 1 && job.Roles[0].Instances > 1 {
		return []string{ProcessMain, ProcessPS}
	}
	return []string{ProcessMain}
}

// Eval is the oracle: the environment task self gets on topology topo.
func Eval(job *jobs.Job, topo Topology, self jobs.TaskRef, opts Options) (Env, error) {
	if job == nil {
		return nil, errNoJob
	}
	k := roleIndex(job, self.Role)
	if k < 0 {
		return nil, fail(ErrTopology, job.NamePos, "Unknown task", "task %s-%d: the job has no role %q.", self.Role, self.Index, self.Role)
	}
	if self.Index < 0 || self.Index >= job.Roles[k].Instances {
		return nil, fail(ErrTopology, job.Roles[k].Pos, "Unknown task", "task %s-%d: role %q has %d instances.", self.Role, self.Index, self.Role, job.Roles[k].Instances)
	}
	p, err := build(job, k, opts)
	if err != nil {
		return nil, err
	}
	if err := checkTopology(job, topo, opts); err != nil {
		return nil, err
	}
	env := make(Env, 0, len(p.defs))
	for _, d := range p.defs {
		env = append(env, Var{Name: d.name, Value: d.val.eval(topo, self.Index)})
	}
	return env, nil
}

// EvalAll is Eval for every task of the job (one program per role, so it
// is much cheaper than calling Eval per task); the UAI parameter-server
// processes are not included (use Eval with Options.Process).
func EvalAll(job *jobs.Job, topo Topology, opts Options) (map[jobs.TaskRef]Env, error) {
	if job == nil {
		return nil, errNoJob
	}
	if err := checkTopology(job, topo, opts); err != nil {
		if _, e := contracts(job, opts); e != nil {
			return nil, e
		}
		return nil, err
	}
	out := map[jobs.TaskRef]Env{}
	for k, r := range job.Roles {
		p, err := build(job, k, opts)
		if err != nil {
			return nil, err
		}
		for i := range r.Instances {
			env := make(Env, 0, len(p.defs))
			for _, d := range p.defs {
				env = append(env, Var{Name: d.name, Value: d.val.eval(topo, i)})
			}
			out[jobs.TaskRef{Role: r.Name, Index: i}] = env
		}
	}
	return out, nil
}

func roleIndex(job *jobs.Job, name string) int {
	for k, r := range job.Roles {
		if r.Name == name {
			return k
		}
	}
	return -1
}
