package nomad

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// Defaults for the site config's `nomad {}` block.
const (
	DefaultDriver         = "docker"
	DefaultBarrierTimeout = 10 * time.Minute
	// DefaultGPURuntime is Nomad's own default for the docker plugin's
	// nvidia_runtime, the runtime its client uses for GPU tasks anyway.
	DefaultGPURuntime = "nvidia"
)

// settings are the site config's nomad block with defaults applied.
type settings struct {
	Region, Namespace, NodePool string
	NamespacePerUser            bool
	Datacenters                 []string
	Priority                    int
	Driver                      string
	// CPUMHzPerCore > 0: CPU is reserved in MHz (cores × this); 0: whole
	// cores are reserved with `cores` (exclusive, like a k8s CPU limit
	// rounded up).
	CPUMHzPerCore  int
	BarrierTimeout time.Duration
	// Helper: a jobshift binary on every client ("" = no in-job finisher).
	Helper string
	// EnvHelper: the binary running nomad-env ("" = Helper).
	EnvHelper string
	// WorkDir of raw_exec/exec tasks ("" = the task directory).
	WorkDir string
	// SpreadNodes > 0: a job's allocations go to that many clients at
	// least (spreadConstraint).
	SpreadNodes int
	// GPURuntime is written as the docker runtime of GPU tasks ("" = none).
	GPURuntime string
	// CapAdd are capabilities for every container task (none by default).
	CapAdd []string
	// DockerNetwork: the operator's user-defined Docker network, which a
	// job whose docker tasks each need a network of their own joins
	// ("" = none: ownNetwork).
	DockerNetwork string
	// NoTaskLogs: every task is rendered with `logs { disabled = true }`
	// (site config task_logs = false; disableLogs).
	NoTaskLogs bool
}

func newSettings(site *siteconfig.Config) (settings, hcl.Diagnostics) {
	s := settings{Driver: DefaultDriver, BarrierTimeout: DefaultBarrierTimeout, GPURuntime: DefaultGPURuntime}
	if site == nil || site.Nomad == nil {
		return s, nil
	}
	n := site.Nomad
	s.Region, s.Namespace, s.NodePool = n.Region, n.Namespace, n.NodePool
	s.NamespacePerUser = n.NamespacePerUser
	s.Datacenters = append([]string(nil), n.Datacenters...)
	s.Priority = n.Priority
	if n.Driver != "" {
		s.Driver = n.Driver
	}
	s.CPUMHzPerCore = n.CPUMHzPerCore
	s.Helper, s.EnvHelper, s.WorkDir = n.Helper, n.EnvHelper, n.WorkDir
	s.SpreadNodes = n.SpreadNodes
	if n.DockerGPURuntime != nil {
		s.GPURuntime = *n.DockerGPURuntime
	}
	s.CapAdd = n.DockerCapAdd
	s.DockerNetwork = n.DockerNetwork
	s.NoTaskLogs = n.TaskLogs != nil && !*n.TaskLogs
	if n.BarrierTimeout != "" {
		d, err := time.ParseDuration(n.BarrierTimeout)
		if err != nil || d <= 0 {
			r := n.Range
			return s, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid barrier_timeout",
				Detail:   fmt.Sprintf("nomad.barrier_timeout = %q is not a positive Go duration; write e.g. \"90s\" or \"10m\".", n.BarrierTimeout),
				Subject:  &r,
			}}
		}
		s.BarrierTimeout = d
	}
	return s, nil
}

// envHelper is the binary a task runs nomad-env with: jobshift-env when
// the site names it, else the jobshift helper ("" = none).
func (s settings) envHelper() string {
	if s.EnvHelper != "" {
		return s.EnvHelper
	}
	return s.Helper
}

// gangTimeout is how long the tasks of a job with completion c may take to
// be placed and registered before the attempt fails: the job's own
// pod-group schedule timeout where it has one (a TrainJob runtime's
// coscheduling scheduleTimeoutSeconds, which kubeflow/trainer
// pkg/runtime/framework/plugins/coscheduling/coscheduling.go @v2.3.0 puts
// on the PodGroup, after which the scheduler gives up the gang), else the
// site's nomad.barrier_timeout. Nomad is the one target that places part
// of a job and queues the rest: Slurm allocates a job whole and the local
// driver starts every task at once.
func (s settings) gangTimeout(c jobs.Completion) time.Duration {
	if c.GangTimeoutSeconds > 0 {
		return time.Duration(c.GangTimeoutSeconds) * time.Second
	}
	return s.BarrierTimeout
}
