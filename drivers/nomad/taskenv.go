package nomad

import (
	"path/filepath"
	"strings"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// The environment evaluated in the task (issue 15: start at the cost of a
// bare job, run 1,000 PAI tasks on Nomad).
//
// A snapshot-mode task normally gets its contract from an env template
// (env = true) over the snapshot Variable. That costs every task a
// consul-template runner in the client agent (its template hook: the last
// gap between a jobshift job's start and a bare one's, BENCHMARKS.md), and
// the agent holds each task's whole rendered environment: a PAI task names
// every peer (≈ 7,000 variables, ≈ 200 KB at 1,000 tasks), so a 1,000-task
// PAI job on one host put GBs into the agents and ran them out of memory.
//
// Where the site installed the jobshift helper (nomad.helper, which the
// in-job finisher already runs) and the task is a host process (raw_exec),
// the task evaluates its environment itself instead: its command is
// `<helper> nomad-env -- <argv>` (or jobshift-env's, nomad.env_helper: the
// same code, drivers/nomad/intask, in a binary that starts in half the
// time), its env block carries TaskEnvVar (what
// the oracle needs: the job's contract input, the role, the snapshot's
// path; base64, so Nomad's interpolation cannot touch it), and its default
// workload identity is written to secrets/nomad_token (file, not env: the
// user's process must not see a token it never had). nomad-env reads the
// snapshot Variable through the Task API with one blocking query, turns it
// into a Topology (contract.SnapshotTopology), evaluates the oracle
// (contract.Eval) for its own task, writes local/jobshift.env as the
// template did (for operators and tests), and execs argv with the result:
// the same variables in the same precedence as the template's (the
// template's lines override the env block, later lines the earlier ones).
// The agent then holds no environment and runs no template; the evaluation
// is the oracle itself, held to the template by the differential tests.
//
// An exec task runs in a chroot that Nomad builds from the client's
// chroot_env: it evaluates its environment itself too when the helper lies
// under a directory of Nomad's default chroot_env (/usr, /bin, ...:
// defaultChroot), where the chroot holds it (a hard-linked copy). There the
// template cost more than on raw_exec: each task's executor starts only
// after its render, so on a 2-core client the 16 renders of a job competed
// with the executors the first ones had started: the last env file
// 1.45-1.86 s after the snapshot, each command 3.2-4.6 s after its file,
// where tasks already running nomad-env had their commands running
// 0.28-0.31 s after it (BENCHMARKS.md, session 17). A site whose
// chroot_env leaves that directory out must install the helper in one it
// keeps (docs/operators.md).
//
// Docker and podman tasks (an image need not have the helper, nor even a
// shell) and exec tasks whose helper is elsewhere keep the template, as
// does a job without a helper or the snapshot.

// TaskEnvVar and TaskEnvCommand are intask's (the package nomad-env runs
// from: the jobshift binary's and jobshift-env's).
const (
	TaskEnvVar     = intask.EnvVar
	TaskEnvCommand = intask.Command
)

// contractJob is job without what the contract never reads and what must
// not travel: parameters, role variables, images and their credentials,
// volumes (Secrets and passwords are never serialised anyway).
func contractJob(job *jobs.Job) *jobs.Job {
	j := *job
	j.Parameters, j.Secrets = nil, nil
	j.Roles = make([]*jobs.Role, len(job.Roles))
	for k, r := range job.Roles {
		c := *r
		c.Env, c.Volumes, c.ImageAuth, c.Image = nil, nil, nil, ""
		j.Roles[k] = &c
	}
	return &j
}

// defaultChroot is the part of Nomad's default client chroot_env
// (client/config.DefaultChrootEnv, v1.11.3) that holds programs: every
// exec task's root has these host directories at the same paths.
var defaultChroot = []string{"/bin", "/lib", "/lib32", "/lib64", "/sbin", "/usr"}

// inDefaultChroot reports whether the absolute path lies under a directory
// of defaultChroot, so that an exec task finds it at the same path.
func inDefaultChroot(path string) bool {
	p := filepath.Clean(path)
	for _, d := range defaultChroot {
		if strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}

// taskEnvPayload is TaskEnvVar's value for the task of role (process
// proc) of job jobID, with the task namespace's view (nil: none), or ""
// when it would be too large (the shape then keeps a template).
func taskEnvPayload(p *translate.Plan, jobID string, role *jobs.Role, proc string, before []contract.Var, cuda bool, view *intask.View) string {
	opts := ContractOptions(p)
	opts.Process = proc
	te := &intask.Env{Job: contractJob(p.Job), Opts: opts, Role: role.Name,
		Snapshot: TopologyPath(jobID, groupName(role.Name)), Before: before, CUDA: cuda, View: view}
	s, err := te.Encode()
	if err != nil || len(TaskEnvVar)+1+len(s) > intask.MaxEnv {
		return ""
	}
	return s
}
