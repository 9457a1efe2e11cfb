package nomad

import (
	"encoding/json"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// Policy is the job's completion.Policy as carried in job meta (MetaPolicy),
// so that the controller, the finisher and `status` from another process
// judge a job without its source file; it adds each role's task group.
// (The wire form predates completion.Policy; it is kept so that jobs
// submitted earlier are still judged.)
type Policy struct {
	Name   string      `json:"name"`
	Format jobs.Format `json:"format"`
	// Version is the apiVersion: it picks the Kubeflow generation's rules.
	Version    string          `json:"version,omitempty"`
	Completion jobs.Completion `json:"completion"`
	Retry      jobs.Retry      `json:"retry"`
	Roles      []PolicyRole    `json:"roles"`
	Elastic    bool            `json:"elastic,omitempty"`
	// Volcano is a Volcano Job's lifecycle (completion.Policy.Volcano).
	Volcano *jobs.Volcano `json:"volcano,omitempty"`
}

// PolicyRole is one role's completion-relevant fields and its group.
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

// metaPolicy is pol in its meta form.
func metaPolicy(pol completion.Policy) Policy {
	p := Policy{Name: pol.Name, Format: pol.Format, Version: pol.Version, Completion: pol.Completion,
		Retry: pol.Retry, Elastic: pol.Elastic, Volcano: pol.Volcano}
	for _, r := range pol.Roles {
		p.Roles = append(p.Roles, PolicyRole{
			Name: r.Name, Group: groupName(r.Name), ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
		})
	}
	return p
}

// Rules is the completion.Policy the meta carries.
func (p Policy) Rules() completion.Policy {
	pol := completion.Policy{Name: p.Name, Kind: p.Completion.Kind, Format: p.Format, Version: p.Version,
		Completion: p.Completion, Retry: p.Retry, Elastic: p.Elastic, Volcano: p.Volcano}
	for _, r := range p.Roles {
		pol.Roles = append(pol.Roles, completion.PolicyRole{
			Name: r.Name, ReplicaType: r.ReplicaType, Instances: r.Instances,
			MinFailed: r.MinFailed, MinSucceeded: r.MinSucceeded,
			TaskRetryCount: r.TaskRetryCount, RestartPolicy: r.RestartPolicy,
		})
	}
	return pol
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
