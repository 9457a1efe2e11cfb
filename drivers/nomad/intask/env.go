// Package intask is what runs inside a Nomad task on jobshift's behalf and
// must start fast: nomad-env, which evaluates the task's environment
// contract and execs the user's command (drivers/nomad taskenv.go says why
// and when a task uses it). It holds only what that needs — the Nomad API
// client, the contract and the job model — so that jobshift-env, the
// binary built from it alone (cmd/jobshift-env), costs a task about half
// the start of the whole jobshift binary (BENCHMARKS.md). drivers/nomad
// encodes the payload with it; the jobshift binary's nomad-env runs it too.
package intask

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

// EnvVar carries the task's contract input (Env, JSON, gzip, base64: so
// Nomad's interpolation cannot touch it) to nomad-env, which removes it
// before the user's command starts.
const EnvVar = "JOBSHIFT_TASK_ENV"

// Command is the subcommand that sets the environment, in both binaries.
const Command = "nomad-env"

// MaxEnv bounds EnvVar: Linux refuses an environment string over 128 KiB
// (MAX_ARG_STRLEN) at exec; a larger job keeps the template.
const MaxEnv = 96 * 1024

// MetaAttempt is the job meta key holding the attempt (drivers/nomad
// render.go); AttemptEnv is how a task sees it.
const (
	MetaAttempt = "jobshift_attempt"
	AttemptEnv  = "NOMAD_META_" + MetaAttempt
)

// Env is what nomad-env needs besides the snapshot.
type Env struct {
	// Job is the job as the contract reads it (no secrets, nothing the
	// contract does not read: drivers/nomad contractJob).
	Job *jobs.Job `json:"job"`
	// Opts are the contract options of the plan on Nomad, Process
	// selecting the task's process.
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
	// View is the task namespace's input when the task runs under its
	// wrapper (nil: it does not, or a template delivers it).
	View *View `json:"view,omitempty"`
}

// Encode is EnvVar's value.
func (te *Env) Encode() (string, error) {
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

// Decode reads EnvVar's value.
func Decode(s string) (*Env, error) {
	if s == "" {
		return nil, fmt.Errorf("%s is not set: %s runs only as the command of a Nomad task that jobshift rendered for it", EnvVar, Command)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not base64: %w", EnvVar, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvVar, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvVar, err)
	}
	te := &Env{}
	if err := json.Unmarshal(b, te); err != nil || te.Job == nil {
		return nil, fmt.Errorf("%s does not hold a task environment (%v)", EnvVar, err)
	}
	return te, nil
}

// Vars are the variables the task's template would have rendered, in its
// order, for task index i, given the snapshot's items and the task's own
// environment lookup (NVIDIA_VISIBLE_DEVICES).
func (te *Env) Vars(i int, items map[string]string, getenv func(string) string) ([]contract.Var, error) {
	topo, err := contract.SnapshotTopology(te.Job, te.Opts, items)
	if err != nil {
		return nil, err
	}
	return te.varsOf(topo, i, getenv)
}

// varsOf is Vars over the snapshot's topology.
func (te *Env) varsOf(topo contract.Topology, i int, getenv func(string) string) ([]contract.Var, error) {
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

// ExecEnv is the user command's environment: the task's own (environ)
// without EnvVar, with vars set over it, later ones winning, as Nomad
// gives template variables precedence over the env block.
func ExecEnv(environ []string, vars []contract.Var) []string {
	set := make(map[string]string, len(vars))
	for _, v := range vars {
		set[v.Name] = v.Value
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := set[name]; over || name == EnvVar {
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

// EnvFile is vars as the template's env file had them: NAME=<JSON string>
// lines, which go-envparse (and drivertest's reader) decode byte for byte.
func EnvFile(vars []contract.Var) []byte {
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

// writeEnvFile writes local/jobshift.env into the task directory dir.
func writeEnvFile(dir string, vars []contract.Var) error {
	return os.WriteFile(dir+"/jobshift.env", EnvFile(vars), 0o644)
}
