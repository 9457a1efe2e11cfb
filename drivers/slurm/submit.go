package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/jobshift/jobshift/internal/freshfile"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// Handle.Meta keys.
const (
	metaDir    = "dir"    // submit directory (SLURM_SUBMIT_DIR)
	metaState  = "state"  // state directory of the job (task exit codes, logs)
	metaRoles  = "roles"  // role names, comma-separated, in job order
	metaCounts = "counts" // instances per role, comma-separated
	metaOutput = "output" // the batch script's output file
	metaScript = "script" // the submitted script
	metaToken  = "token"  // the submission's token in its state directory (statedir.go)
)

// ErrSubmit: sbatch refused the job.
var ErrSubmit = errors.New("sbatch rejected the job")

// ErrPlacement: sbatch refused the job because no node (or not enough of
// them) can ever hold it as requested.
var ErrPlacement = errors.New("the job cannot be placed")

// unplaceable reports whether sbatch's message says the request does not
// fit the cluster (as opposed to a bad option or an unreachable slurmctld).
func unplaceable(msg string) bool {
	for _, s := range []string{"Requested node configuration is not available", "Node count specification invalid",
		"More processors requested than permitted", "Memory required by task is not available"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Submit writes the script under <cwd>/.jobshift/scripts and submits it
// with `sbatch --parsable` from the current directory, so tasks start where
// the user is (SLURM_SUBMIT_DIR) and record their state under
// <cwd>/.jobshift/<job id>.
//
// long: render, write, sbatch and the handle in the order a submission
// takes; the pieces are in helpers already.
func (d *Driver) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	a, err := d.Render(ctx, p)
	if err != nil {
		return drivers.Handle{}, err
	}
	if _, err := exec.LookPath("sbatch"); err != nil {
		return drivers.Handle{}, fmt.Errorf("sbatch not found in PATH (install slurm-client and set SLURM_CONF): %w", drivers.ErrUnavailable)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return drivers.Handle{}, err
	}
	if dir := p.Options["submit_dir"]; dir != "" {
		cwd = dir
	}
	st, err := resolveSettings(p)
	if err != nil {
		return drivers.Handle{}, err
	}
	state := filepath.Join(cwd, ".jobshift")
	if st.StateDir != "" {
		state = st.StateDir
	}
	if env := os.Getenv("JOBSHIFT_STATE_DIR"); env != "" {
		state = env
	}
	scripts := filepath.Join(state, "scripts")
	if err := makeStateDir(state); err != nil {
		return drivers.Handle{}, err
	}
	token, err := newToken()
	if err != nil {
		return drivers.Handle{}, err
	}
	cluster, err := clusterName(ctx)
	if err != nil {
		return drivers.Handle{}, err
	}
	stamp := time.Now().Format("20060102-150405.000000")
	var path, secrets, lib string
	for i, f := range a.Files {
		fp := filepath.Join(scripts, stamp+"-"+f.Name)
		if strings.HasPrefix(f.Name, "jobshift-slurm-") {
			// one library per version, shared by every job of the state
			// directory (its name is its content's hash)
			fp = filepath.Join(state, "lib", f.Name)
			lib = fp
			if have, err := os.ReadFile(fp); err == nil && bytes.Equal(have, f.Data) {
				continue
			}
		}
		mode := os.FileMode(f.Mode)
		if mode == 0 {
			mode = 0o644
		}
		// fresh file, exact mode, never through a link at the name
		if err := freshfile.Write(fp, f.Data, mode); err != nil {
			return drivers.Handle{}, err
		}
		switch {
		case i == 0:
			path = fp
		case fp != lib:
			secrets = fp
		}
	}
	cmd := exec.CommandContext(ctx, "sbatch", "--parsable", path)
	cmd.Dir = cwd
	// sbatch exports its environment into the job: the script finds the
	// secrets file and the library by these paths
	cmd.Env = append(os.Environ(), tokenEnv+"="+token)
	if secrets != "" {
		cmd.Env = append(cmd.Env, "JOBSHIFT_SECRETS="+secrets)
	}
	if lib != "" {
		cmd.Env = append(cmd.Env, "JOBSHIFT_SLURM_LIB="+lib)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if unplaceable(errb.String()) {
			return drivers.Handle{}, fmt.Errorf("%w (%w): %s%s", ErrSubmit, ErrPlacement, strings.TrimSpace(errb.String()), submitHint(errb.String(), p))
		}
		return drivers.Handle{}, fmt.Errorf("%w: %s%s", ErrSubmit, strings.TrimSpace(errb.String()), submitHint(errb.String(), p))
	}
	id := strings.TrimSpace(out.String())
	id, _, _ = strings.Cut(id, ";") // id;cluster
	if id == "" {
		return drivers.Handle{}, fmt.Errorf("%w: sbatch printed no job id", ErrSubmit)
	}
	h := handleFor(p, st, cwd, state, id, path)
	h.Meta[metaState], h.Meta[metaToken] = filepath.Join(state, jobDirName(cluster, id)), token
	if err := writeManifest(h); err != nil {
		// The job runs; only status/logs by id from another process
		// need the manifest (and fall back to the default state place).
		return h, fmt.Errorf("slurm job %s submitted, but its manifest could not be written: %w", id, err)
	}
	return h, nil
}

// handleFor is the handle of job id submitted with script from cwd.
func handleFor(p *translate.Plan, st settings, cwd, state, id, script string) drivers.Handle {
	var names, counts []string
	for _, r := range p.Job.Roles {
		names = append(names, r.Name)
		counts = append(counts, fmt.Sprint(r.Instances))
	}
	outDir := cwd
	if st.StateDir != "" {
		outDir = st.StateDir
	}
	return drivers.Handle{Driver: Name, ID: id, Meta: map[string]string{
		metaDir: cwd, metaState: filepath.Join(state, id), metaRoles: strings.Join(names, ","),
		metaCounts: strings.Join(counts, ","), metaScript: script,
		metaOutput: filepath.Join(outDir, fmt.Sprintf("%s-%s.out", nameRE.ReplaceAllString(p.Job.Name, "_"), id)),
	}}
}

// submitHint explains the sbatch errors users hit most.
func submitHint(msg string, p *translate.Plan) string {
	switch {
	case strings.Contains(msg, "Requested node configuration is not available") && p.Compiled().HasContract(jobs.ContractLeinao):
		return fmt.Sprintf("\n  This LeinaoPAI job needs %d nodes, one per task: every task binds ports %v in the host's network, "+
			"so no node may hold two of them, and the partition has fewer nodes that can hold a task as requested (check `sinfo -o '%%N %%c %%m %%G'`).", p.Job.TaskCount(), contract.LeinaoPorts)
	case strings.Contains(msg, "Requested node configuration is not available"):
		var gpu []string
		for _, r := range p.Job.Roles {
			if r.Resources.GPU > 0 {
				gpu = append(gpu, fmt.Sprintf("%s: %d GPU(s) per task", r.Name, r.Resources.GPU))
			}
		}
		h := "\n  No node of the partition can hold one task as requested (CPUs, memory or GPUs per task; check `sinfo -o '%N %c %m %G'`)."
		if len(gpu) > 0 {
			h += "\n  GPU requests: " + strings.Join(gpu, "; ") + "."
		}
		return h
	case strings.Contains(msg, "Invalid account") || strings.Contains(msg, "Invalid qos"):
		return "\n  Set account = \"NAME\" and qos = \"NAME\" (one per line) in jobshift.hcl's slurm block to values `sacctmgr show assoc user=$USER` lists."
	}
	return ""
}

// Stop cancels the job (every component and step).
func (d *Driver) Stop(ctx context.Context, h drivers.Handle) error {
	out, err := exec.CommandContext(ctx, "scancel", h.ID).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "Invalid job id") {
			return fmt.Errorf("slurm job %s: %w", h.ID, drivers.ErrNotFound)
		}
		return fmt.Errorf("scancel %s: %v: %s", h.ID, err, strings.TrimSpace(string(out)))
	}
	return nil
}
