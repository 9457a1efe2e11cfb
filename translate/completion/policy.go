package completion

import (
	"time"

	"github.com/jobshift/jobshift/jobs"
)

// Policy is everything the completion rules read of a job, resolved once by
// translate.Build and serialisable (JSON): the Nomad driver carries it in job
// meta so that a controller, a finisher or `status` in another process judges
// the job without its source file; the Slurm script's decision data is
// rendered from it; the attempt Machine runs on it. Drivers read Kind and the
// thresholds here and never look at the input format.
type Policy struct {
	Name string `json:"name"`
	// Kind is the completion kind, resolved (KindOf): "" only for jobs
	// without rules (generic: every task must end).
	Kind jobs.CompletionKind `json:"kind,omitempty"`
	// Format and Version pick the platform era's rules (PAIEra: v1 JSON
	// jobs have YARN exit codes; jobs.KubeflowGen: the operator generation).
	// Only this package reads them.
	Format  jobs.Format `json:"format"`
	Version string      `json:"version,omitempty"`
	// Completion and Retry are the job's, without source positions.
	Completion jobs.Completion `json:"completion"`
	Retry      jobs.Retry      `json:"retry"`
	// Elastic: PyTorchJob elasticPolicy is set (a Worker's success ends
	// the job).
	Elastic bool         `json:"elastic,omitempty"`
	Roles   []PolicyRole `json:"roles"`
	// Volcano is a Volcano Job's lifecycle (policies, gang, maxRetry).
	Volcano *jobs.Volcano `json:"volcano,omitempty"`
}

// PolicyRole is one role's completion-relevant fields.
type PolicyRole struct {
	Name           string `json:"name"`
	ReplicaType    string `json:"replicaType,omitempty"`
	Instances      int    `json:"instances"`
	MinFailed      *int   `json:"minFailed"`
	MinSucceeded   *int   `json:"minSucceeded"`
	TaskRetryCount int    `json:"taskRetryCount,omitempty"`
	RestartPolicy  string `json:"restartPolicy,omitempty"`
	// BackoffLimit is a JobSet replicated Job's (jobsetRestart);
	// DependsOn the step order (MayStart, Blocked), without positions.
	BackoffLimit *int              `json:"backoffLimit,omitempty"`
	DependsOn    []jobs.Dependency `json:"dependsOn,omitempty"`
}

// PolicyOf extracts job's policy, with its kind resolved.
func PolicyOf(job *jobs.Job) Policy {
	p := Policy{Name: job.Name, Kind: KindOf(job), Format: job.Source.Format, Version: job.Source.Version,
		Completion: job.Completion, Retry: job.Retry, Elastic: job.Extras.ElasticPolicy != nil, Volcano: job.Extras.Volcano}
	p.Completion.Pos, p.Retry.Pos = jobs.Pos{}, jobs.Pos{}
	p.Completion.Kind = p.Kind
	for _, r := range job.Roles {
		if r == nil {
			continue
		}
		pr := PolicyRole{
			Name: r.Name, ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
			BackoffLimit: r.BackoffLimit,
		}
		for _, d := range r.DependsOn {
			d.Pos = jobs.Pos{}
			pr.DependsOn = append(pr.DependsOn, d)
		}
		p.Roles = append(p.Roles, pr)
	}
	return p
}

// Job rebuilds the jobs.Job the rule functions of this package read (the
// fields PolicyOf kept; nothing else is set).
func (p Policy) Job() *jobs.Job {
	j := &jobs.Job{Name: p.Name, Source: jobs.Source{Format: p.Format, Version: p.Version},
		Completion: p.Completion, Retry: p.Retry}
	if p.Kind != "" {
		j.Completion.Kind = p.Kind
	}
	if p.Elastic {
		j.Extras.ElasticPolicy = map[string]any{}
	}
	j.Extras.Volcano = p.Volcano
	for _, r := range p.Roles {
		j.Roles = append(j.Roles, &jobs.Role{
			Name: r.Name, ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
			BackoffLimit: r.BackoffLimit, DependsOn: r.DependsOn,
		})
	}
	return j
}

// Deadline is the policy's activeDeadlineSeconds (see the function
// Deadline).
func (p Policy) Deadline() (time.Duration, bool) { return Deadline(p.Job()) }

// TaskCount is the number of tasks of one attempt.
func (p Policy) TaskCount() int {
	n := 0
	for _, r := range p.Roles {
		n += r.Instances
	}
	return n
}

// Generation is the Kubeflow operator generation whose rules apply
// (jobs.KubeflowGenNone for other platforms).
func (p Policy) Generation() jobs.KubeflowGen { return p.Job().KubeflowGen() }

// Era is the PAI era whose exit-code table applies (PAIEra).
func (p Policy) Era() string { return PAIEra(p.Job()) }
