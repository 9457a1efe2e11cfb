package contract

import (
	"errors"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
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
	// Contracts to render in order; empty = job.Contracts unless Exact.
	Contracts []string
	// Exact: Contracts is the whole list even when empty (-contract =:
	// no contract at all), not a default to fill from the job.
	Exact bool
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
	// MPIDirRunTime: the target knows the MPI directory only at run time
	// and passes it in the topology (Topology.MPIDir; Shell's JS_MPI_DIR):
	// Slurm, where it is a directory of the job's own allocation, so the
	// rendered script is the same for every submission. MPIDir is ignored.
	// Nomad templates cannot carry it (ErrTarget).
	MPIDirRunTime bool
	// SSH adds the ssh emulation's own variables (SSHHostsVar,
	// SSHSelfVar) to the tasks of SSHRoles; drivers that run the emulation
	// set it.
	SSH bool
	// HostNames: the target runs the tasks under the task view
	// (drivers/taskns), where a peer's platform name resolves once
	// HostsVar names it. Contracts whose platform gave a peer's address by
	// its service name (the Trainer plugins' <job>-node-0-0.<job>) then
	// give that name, and HostsVar maps it to the address; otherwise the
	// address itself (see NamesRole).
	HostNames bool
	// PeerEntries: the target resolves Volcano's svc names through one
	// variable per name, PeerHostVar(n) = "NAME:ADDR" (Nomad docker's
	// extra_hosts, which takes one entry per name; see PeerHostsVar).
	PeerEntries bool
}

// Processes a task can run, see Options.Process.
const (
	ProcessMain = ""
	ProcessPS   = "ps"
)

// WorkDirVar is exported by the task itself, see NeedsWorkDir.
const WorkDirVar = "PAI_WORK_DIR"

// WorkDirExport is the sh line that exports WorkDirVar as the task's working
// directory right before the user command, as PAI's runtime did; the one
// form every target (and the shell contract) uses.
// It is what `pwd` prints, read from $PWD without starting a process: POSIX
// shells keep PWD the working directory's logical path and pwd prints it;
// only where $PWD is not that directory (a job variable named PWD, a
// shell without -ef) does it run $(pwd), a fork before every task's
// command. No braces: the line travels in Nomad task arguments.
// (Assignment then export: `export V="$(pwd)"` would hide a failure of
// the substitution, shellcheck SC2155.)
// -ef is not POSIX but dash, bash, ksh and busybox have it; a shell
// without it fails the test and runs pwd, which is right too.
const WorkDirExport = "PAI_WORK_DIR=$PWD\n# shellcheck disable=SC3013\n[ \"$PAI_WORK_DIR\" -ef . ] 2>/dev/null || PAI_WORK_DIR=$(pwd)\nexport PAI_WORK_DIR\n"

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

var errNoJob = &diag.Error{Kind: ErrJob, Diags: hcl.Diagnostics{jobs.Errorf(jobs.Pos{}, "No job", "The contract needs a job.")}}

// fail is a one-diagnostic error; every error the package returns is a
// *diag.Error whose Kind is one of the sentinels above.
func fail(kind error, p jobs.Pos, summary, format string, args ...any) *diag.Error {
	return &diag.Error{Kind: kind, Diags: hcl.Diagnostics{jobs.Errorf(p, summary, format, args...)}}
}

// Known lists every contract name, in the order help texts give them.
var Known = []string{
	jobs.ContractPAI, jobs.ContractPAIYarn, jobs.ContractLeinao, jobs.ContractTF, jobs.ContractUAI, jobs.ContractTorch, jobs.ContractMPI,
	jobs.ContractXGBoost, jobs.ContractPaddle, jobs.ContractJAX, jobs.ContractMXNet,
	jobs.ContractTrainerTorch, jobs.ContractTrainerMPI, jobs.ContractTrainerJAX, jobs.ContractTrainerXGBoost,
	jobs.ContractVolcano,
}

func known(c string) bool {
	for _, k := range Known {
		if k == c {
			return true
		}
	}
	return false
}

// contracts resolves Options.Contracts (empty = the job's unless Exact),
// dropping repeats.
func contracts(job *jobs.Job, opts Options) ([]string, error) {
	list := opts.Contracts
	if len(list) == 0 && !opts.Exact {
		list = job.Contracts
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range list {
		if !known(c) {
			return nil, fail(ErrUnknownContract, job.NamePos, "Unknown contract",
				"%q is not a contract; known are %s.", c, strings.Join(Known, ", "))
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
	k, err := (&Compiled{job: job}).task(self)
	if err != nil {
		return nil, err
	}
	c, err := Compile(job, opts)
	if err != nil {
		return nil, err
	}
	if _, err := c.program(k, opts.Process); err != nil {
		return nil, err
	}
	b, err := c.Bind(topo)
	if err != nil {
		return nil, err
	}
	return b.Env(self, opts.Process)
}

// EvalAll is Eval for every task of the job (the job compiled once, the
// shared part of every value evaluated once per role); the UAI
// parameter-server processes are not included (use Bound.Env).
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
	c, err := Compile(job, opts)
	if err != nil {
		return nil, err
	}
	b := c.bound(topo)
	out := make(map[jobs.TaskRef]Env, job.TaskCount())
	for _, r := range job.Roles {
		for i := range r.Instances {
			ref := jobs.TaskRef{Role: r.Name, Index: i}
			env, err := b.Env(ref, ProcessMain)
			if err != nil {
				return nil, err
			}
			out[ref] = env
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
