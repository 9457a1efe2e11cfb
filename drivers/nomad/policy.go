package nomad

import (
	"encoding/json"

	"github.com/jobshift/jobshift/jobs"
)

// Policy is the part of a job the completion engine needs, carried in job
// meta (MetaPolicy) so that the controller — and `status` from another
// process — can judge a job without its source file.
type Policy struct {
	Name   string      `json:"name"`
	Format jobs.Format `json:"format"`
	// Version is the apiVersion: it picks the Kubeflow generation's rules
	// (jobs.Job.KubeflowGen).
	Version    string          `json:"version,omitempty"`
	Completion jobs.Completion `json:"completion"`
	Retry      jobs.Retry      `json:"retry"`
	Roles      []PolicyRole    `json:"roles"`
}

// PolicyRole is one role's completion-relevant fields.
type PolicyRole struct {
	Name           string `json:"name"`
	Group          string `json:"group"`
	ReplicaType    string `json:"replicaType,omitempty"`
	Instances      int    `json:"instances"`
	MinFailed      *int   `json:"minFailed"`
	MinSucceeded   *int   `json:"minSucceeded"`
	TaskRetryCount int    `json:"taskRetryCount,omitempty"`
	RestartPolicy  string `json:"restartPolicy,omitempty"`
}

// PolicyOf extracts a job's policy.
func PolicyOf(j *jobs.Job) Policy {
	p := Policy{Name: j.Name, Format: j.Source.Format, Version: j.Source.Version, Completion: j.Completion, Retry: j.Retry}
	p.Completion.Pos, p.Retry.Pos = jobs.Pos{}, jobs.Pos{}
	for _, r := range j.Roles {
		p.Roles = append(p.Roles, PolicyRole{
			Name: r.Name, Group: groupName(r.Name), ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
		})
	}
	return p
}

// Job rebuilds a jobs.Job with what the completion engine reads.
func (p Policy) Job() *jobs.Job {
	j := &jobs.Job{Name: p.Name, Source: jobs.Source{Format: p.Format, Version: p.Version}, Completion: p.Completion, Retry: p.Retry}
	for _, r := range p.Roles {
		j.Roles = append(j.Roles, &jobs.Role{
			Name: r.Name, ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
		})
	}
	return j
}

// ParsePolicy reads MetaPolicy.
func ParsePolicy(meta map[string]string) (Policy, bool) {
	var p Policy
	s, ok := meta[MetaPolicy]
	if !ok || json.Unmarshal([]byte(s), &p) != nil {
		return Policy{}, false
	}
	return p, true
}
