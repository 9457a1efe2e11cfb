// Package slurm is jobshift's Slurm target: it renders a job as an sbatch
// script that runs with plain sbatch (spec/slurm.md, DESIGN.md "Slurm
// mapping") beside one content-addressed library file holding the fixed
// shell (library.go; option library = "inline" puts it inside the script),
// and submits, watches, stops and reads the logs of it with the Slurm
// client commands.
//
// Site config (`slurm {}` in jobshift.hcl) fields, and the -opt overrides
// (Plan.Options) with the same names:
//
//	partition, account, qos  copied to #SBATCH (none by default)
//	time_limit               --time for jobs without activeDeadlineSeconds
//	                         (those get the deadline + 3 min); unset: the
//	                         partition's default
//	layout                   auto (default) | het | packed; auto picks one
//	                         plain step for a one-role job, het when roles
//	                         differ in resources, packed otherwise
//	container                none (default; warns when a role names an
//	                         image) | apptainer | pyxis
//	gpu_request              gpus-per-task (default) | gres (one task per
//	                         node, --gres=gpu:N)
//	port_base                first port of the job port window (20000); a
//	                         job uses base + (job id mod slots) * span + its
//	                         task's port ordinal, within base..base+9999
//	address                  nodeaddr (default) | hostname: the address the
//	                         contract gives a task (scontrol show node)
//	spread_nodes             0 (default: Slurm packs) | N: the packed
//	                         allocation gets --nodes=min(tasks, N), tasks
//	                         spread over N nodes; auto then picks packed
//	sbatch (site only)       extra #SBATCH directives after jobshift's own;
//	                         role rules add theirs (sbatch) and setup
//	                         commands (setup); option sbatch_args
//	                         (-sbatch-arg) adds the run's (site.go)
//	library (option only)    file (default) | inline (library.go)
//	state_dir (option only)  where tasks record exit codes and logs; must be
//	                         shared by the nodes; default
//	                         $SLURM_SUBMIT_DIR/.jobshift (or $JOBSHIFT_STATE_DIR);
//	                         the user's own, writable by nobody else (refused
//	                         otherwise); a job's is <cluster>-<job ID> in it
//	                         (statedir.go)
//	restart_backoff          tests only: the first in-place restart back-off
//	(option only)            (e.g. 300ms; max 30x), instead of the kubelet's
//	                         10s/300s; also $JOBSHIFT_TEST_RESTART_BACKOFF
//
// SLURM_CONF is honoured by every Slurm command jobshift runs (it inherits
// the environment) and by the jobs (sbatch exports it).
//
// How the script behaves (sh/*.sh, all POSIX sh, embedded):
//
//   - The state directory (task exit codes, task logs <role>-<i>.out/.err,
//     the verdict) must be on a file system every node sees, like the
//     submit directory on any Slurm site; tasks write there, the batch
//     script reads it.
//   - Layout het and single place tasks with --distribution=block; packed
//     uses --distribution=arbitrary (SLURM_HOSTFILE) so that each role's
//     step lands on exactly the slots the script assigned it (block alone
//     lets concurrent steps take each other's slots).
//   - Completion: every task end is replayed through the platform's rules
//     (sh/decide.sh = completion.Decide); then every role still running is
//     stopped with SIGTERM through its srun (steps end CANCELLED, the job
//     COMPLETED or FAILED by the verdict). Kubeflow cleanPodPolicy None
//     cannot keep tasks alive: the allocation ends with the batch script.
//   - Task restarts in place (Kubeflow restartPolicy with backoffLimit, PAI
//     taskRetryCount without gang allocation) happen inside the task's step
//     (completion.RestartShell = completion.TaskRestartDecision), after the
//     kubelet's back-off (js_backoff = completion.Backoff: at once, then
//     10 s doubling to 300 s, reset after 10 minutes running; a stop
//     interrupts the wait; every run's start/end in runs.R.I); whole-job retries
//     requeue the job (scontrol requeue, counted in the state directory,
//     attempt = SLURM_RESTART_COUNT, whose directory is attempt-N+1). A
//     Volcano Job's count there is its RetryCount, its policies' restarts
//     in place included (batch.sh js_volcano_seed, js_volcano_fold).
//   - Platform files (jobs.Role.Files: ConfigMap and Secret volumes,
//     /etc/volcano, Trainer's hostfile) are written by each task into its
//     private view directory and bound read-only at their paths by the
//     task namespace (view.go filesData, run.sh js_files); a Secret's
//     content comes from the 0600 secrets file, never the script. Roles
//     in a container get no such view: their files are refused.
//   - activeDeadlineSeconds is enforced by the script (exit 124); --time is
//     the deadline plus 3 minutes as a backstop.
//   - Containers: apptainer pulls each image once per job into a SIF in the
//     state directory and runs `apptainer exec --nv SIF cmd`; pyxis adds
//     --container-image (registry written with '#') and mounts the state
//     directory. Neither runtime exists on the test cluster: both are
//     rendered and shellchecked, not run.
package slurm

import (
	"context"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate"
)

// Name is the target name.
const Name = "slurm"

func init() {
	drivers.Register(Name, func(cfg drivers.Config) (drivers.Driver, error) { return New(cfg), nil })
}

var _ drivers.Driver = (*Driver)(nil)

// Driver is the Slurm driver.
type Driver struct {
	cfg drivers.Config
}

// New returns a Slurm driver.
func New(cfg drivers.Config) *Driver { return &Driver{cfg: cfg} }

// Name implements drivers.Driver.
func (d *Driver) Name() string { return Name }

// Render returns the batch script, the library it sources (library.go;
// none with option library = "inline") and the 0600 secrets file when the
// job has secrets.
func (d *Driver) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	sc, err := render(p)
	if err != nil {
		return nil, err
	}
	d.warn(sc.Warnings)
	a := &drivers.Artifact{MediaType: "text/x-shellscript",
		Files: []drivers.File{{Name: scriptName(p), Mode: 0o755, Data: []byte(sc.Text)}}}
	if sc.Library != "" {
		name, _ := libraryName(sc.Library)
		a.Files = append(a.Files, drivers.File{Name: name, Mode: 0o644, Data: []byte(sc.Library)})
	}
	if len(sc.Secrets) > 0 {
		a.Files = append(a.Files, drivers.File{Name: secretsName(p.Job), Mode: 0o600, Data: sc.Secrets})
	}
	return a, nil
}

func (d *Driver) warn(ws hcl.Diagnostics) { d.cfg.Report(ws) }

func scriptName(p *translate.Plan) string {
	n := nameRE.ReplaceAllString(p.Job.Name, "_")
	if n == "" {
		n = "jobshift"
	}
	return n + ".sbatch"
}
