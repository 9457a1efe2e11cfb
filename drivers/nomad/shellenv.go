package nomad

import (
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// The snapshot's environment as a file for sh to source, where the task
// cannot evaluate it itself (no jobshift-env, taskenv.go) but runs /bin/sh
// anyway (raw_exec and exec: the stop wrapper or the restart loop is
// already sh). The env template (env = true) must be whole before Nomad
// starts a task, so every task's start — its executor, ≈ 0.15–0.2 s of CPU
// on the slow 2-core VMs of BENCHMARKS.md — waited for the snapshot and
// then all of them started at once, competing with the renders still to
// come: the last environment landed 1.3–2.2 s after the snapshot there.
// This template renders nothing until the snapshot exists, so the task
// starts with the others while it is still to come, waits in
// sh/env-wait.sh, and the release is one render and one wake-up.

//go:embed sh/env-wait.sh
var shEnvWait string

var envWaitArg = shCode(shEnvWait)

// envWaitArg0 is env-wait's $0 (its name in ps).
const envWaitArg0 = "jobshift-env-wait"

// ShellEnvFile is the file env-wait.sh sources (under NOMAD_TASK_DIR):
// a task that has this template gets its environment that way.
const ShellEnvFile = "local/jobshift.env.sh"

// envWakeArg is the template's change script: a line into env-wait's
// FIFO, opened read-write so that it never waits for a reader; nothing
// when env-wait has not made the FIFO yet (it then reads the file first).
const envWakeArg = `w=$NOMAD_TASK_DIR/jobshift.env.wake; [ -p "$w" ] && echo 1 1<>"$w"; exit 0`

// OptEnvTemplate (plan option, tests and benchmarks): "1" keeps the env
// template where a sourced file would do, so the two ways compare on one
// driver (a container task always has the template).
const OptEnvTemplate = "env_template"

// shellEnvTemplate is the template of the sourced file: rendered again
// when the snapshot appears (not once) and at once: Nomad's clients wait
// for data to settle before a re-render (client template.wait, 5 s by
// default: seen here as every task released 5.0–5.2 s after the
// snapshot), a template's own wait of 0 does not; its change script runs
// the wake-up at once too (no splay; a failed wake-up, before the task
// runs, fails nothing).
func shellEnvTemplate(text string) *api.Template {
	zero := time.Duration(0)
	return &api.Template{
		Wait:         &api.WaitConfig{Min: &zero, Max: &zero},
		EmbeddedTmpl: new(text),
		DestPath:     new(ShellEnvFile), // not secrets/: readable for debugging, holds no secret
		ChangeMode:   new("script"),
		ChangeScript: &api.ChangeScript{Command: new("/bin/sh"), Args: []string{"-c", envWakeArg},
			Timeout: new(5 * time.Second), FailOnError: new(false)},
		Splay: &zero,
		Perms: new("0600"),
	}
}

// envShell is the sourced file's template: the variables ownEnv left
// (before, cuda) and the contract (contract.NomadSnapshotShell); false
// with no diagnostic when a name is not a shell name (the env template
// carries those).
func (r *renderer) envShell(role *jobs.Role, proc string, before []contract.Var, cuda bool) (string, bool) {
	var lines []string
	for _, e := range before {
		if !contract.IsShellName(e.Name) {
			return "", false
		}
		lines = append(lines, fmt.Sprintf("export %s='{{ base64Decode %q | %s }}'", e.Name, base64.StdEncoding.EncodeToString([]byte(e.Value)), contract.TemplateShellQuote))
	}
	if cuda {
		lines = append(lines, `export CUDA_VISIBLE_DEVICES='{{ env "NVIDIA_VISIBLE_DEVICES" | `+contract.TemplateShellQuote+` }}'`)
	}
	text, err := r.contract.EnvShell(r.plan, role, r.jobID, proc, TopologyPath(r.jobID, groupName(role.Name)))
	switch {
	case errors.Is(err, contract.ErrShellNames):
		return "", false
	case err != nil:
		r.errorf(role.Pos, "Cannot render the environment contract", "%v", err)
		return "", false
	}
	return joinEnvLines(append(lines, text)), true
}
