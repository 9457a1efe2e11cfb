package nomad

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jobshift/jobshift/jobs"
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
// `<helper> nomad-env -- <argv>`, its env block carries TaskEnvVar (what
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
// Docker and podman tasks (an image need not have the helper, nor even a
// shell) and exec tasks (the helper is outside their chroot) keep the
// template, as does a job without a helper or the snapshot.

// TaskEnvVar carries the task's contract input (taskEnv, JSON, gzip,
// base64) to nomad-env, which removes it before the user's command starts.
const TaskEnvVar = "JOBSHIFT_TASK_ENV"

// TaskEnvCommand is the helper's subcommand that sets the environment.
const TaskEnvCommand = "nomad-env"

// maxTaskEnv bounds TaskEnvVar: Linux refuses an environment string over
// 128 KiB (MAX_ARG_STRLEN) at exec; a larger job keeps the template.
const maxTaskEnv = 96 * 1024

// taskEnv is what nomad-env needs besides the snapshot.
type taskEnv struct {
	// Job is the job as the contract reads it (contractJob: no secrets,
	// nothing the contract does not read).
	Job *jobs.Job `json:"job"`
	// Opts are the contract options of the plan on Nomad (ContractOptions),
	// Process selecting the task's process.
	Opts contract.Options `json:"opts"`
	Role string           `json:"role"`
	// Snapshot is the topology Variable's path.
	Snapshot string `json:"snapshot"`
	// Before are the variables the template wrote before the contract:
	// the user's values holding ${...} (which Nomad would rewrite in the
	// env block), in order.
	Before []contract.Var `json:"before,omitempty"`
	// CUDA: CUDA_VISIBLE_DEVICES is the task's NVIDIA_VISIBLE_DEVICES (a
	// plain process with GPUs; the template's `env` line), after Before.
	CUDA bool `json:"cuda,omitempty"`
}

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

// encode is TaskEnvVar's value.
func (te *taskEnv) encode() (string, error) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err := json.NewEncoder(zw).Encode(te); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// decodeTaskEnv reads TaskEnvVar's value.
func decodeTaskEnv(s string) (*taskEnv, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", TaskEnvVar, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TaskEnvVar, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", TaskEnvVar, err)
	}
	te := &taskEnv{}
	if err := json.Unmarshal(b, te); err != nil || te.Job == nil {
		return nil, fmt.Errorf("%s does not hold a task environment (%v)", TaskEnvVar, err)
	}
	return te, nil
}

// vars are the variables the task's template would have rendered, in its
// order, for task index i, given the snapshot's items and the task's own
// environment lookup (NVIDIA_VISIBLE_DEVICES).
func (te *taskEnv) vars(i int, items map[string]string, getenv func(string) string) ([]contract.Var, error) {
	topo, err := contract.SnapshotTopology(te.Job, te.Opts, items)
	if err != nil {
		return nil, err
	}
	env, err := contract.Eval(te.Job, topo, jobs.TaskRef{Role: te.Role, Index: i}, te.Opts)
	if err != nil {
		return nil, err
	}
	out := append([]contract.Var(nil), te.Before...)
	if te.CUDA {
		out = append(out, contract.Var{Name: "CUDA_VISIBLE_DEVICES", Value: getenv("NVIDIA_VISIBLE_DEVICES")})
	}
	return append(out, env...), nil
}

// execEnv is the user command's environment: the task's own (environ)
// without TaskEnvVar, with vars set over it, later ones winning, as
// Nomad gives template variables precedence over the env block.
func execEnv(environ []string, vars []contract.Var) []string {
	set := make(map[string]string, len(vars))
	for _, v := range vars {
		set[v.Name] = v.Value
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := set[name]; over || name == TaskEnvVar {
			continue
		}
		out = append(out, kv)
	}
	seen := make(map[string]bool, len(set))
	for _, v := range vars {
		if !seen[v.Name] {
			seen[v.Name] = true
			out = append(out, v.Name+"="+set[v.Name])
		}
	}
	return out
}

// envFile is vars as the template's env file had them: NAME=<JSON string>
// lines, which go-envparse (and drivertest's reader) decode byte for byte.
func envFile(vars []contract.Var) []byte {
	var b bytes.Buffer
	for _, v := range vars {
		q, _ := json.Marshal(v.Value)
		b.WriteString(v.Name)
		b.WriteByte('=')
		b.Write(q)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// inTaskEnv reports whether a main task of this driver gets its
// environment from nomad-env rather than from a template.
func (r *renderer) inTaskEnv(driver string) bool {
	return r.snapshot && r.set.Helper != "" && driver == "raw_exec"
}

// taskEnvOf is TaskEnvVar's value for the task of role (process proc),
// or "" when it would be too large (the caller keeps the template).
func (r *renderer) taskEnvOf(role *jobs.Role, proc string, before []contract.Var, cuda bool) string {
	opts := ContractOptions(r.plan)
	opts.Process = proc
	te := &taskEnv{Job: contractJob(r.plan.Job), Opts: opts, Role: role.Name,
		Snapshot: TopologyPath(r.jobID, groupName(role.Name)), Before: before, CUDA: cuda}
	s, err := te.encode()
	if err != nil || len(TaskEnvVar)+1+len(s) > maxTaskEnv {
		return ""
	}
	return s
}

// writeEnvFile writes local/jobshift.env into the task directory dir.
func writeEnvFile(dir string, vars []contract.Var) error {
	return os.WriteFile(dir+"/jobshift.env", envFile(vars), 0o644)
}
