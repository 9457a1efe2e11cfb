package nomad

import (
	"encoding/json"

	"github.com/jobshift/jobshift/translate/completion"
)

// The job's completion.Policy travels in job meta (MetaPolicy) as its own
// JSON, written once when the job is rendered and read back as the same
// type, so that the controller, the finishers and `status` in another
// process judge a job without its source file. A role's task group is
// groupName of its name. Jobs rendered before carried the same fields,
// the kind only inside `completion`, and each role's group (ignored:
// it was groupName of the role's name too).

// policyMeta is MetaPolicy's value.
func policyMeta(pol completion.Policy) (string, error) {
	b, err := json.Marshal(pol)
	return string(b), err
}

// ParsePolicy reads MetaPolicy.
func ParsePolicy(meta map[string]string) (completion.Policy, bool) {
	var p completion.Policy
	s, ok := meta[MetaPolicy]
	if !ok || json.Unmarshal([]byte(s), &p) != nil {
		return completion.Policy{}, false
	}
	if p.Kind == "" {
		p.Kind = p.Completion.Kind // a job rendered before the kind was stored
	}
	return p, true
}

// roleOrder is the position of a role in the job file (unknown roles last).
func roleOrder(p completion.Policy, role string) int {
	for i, r := range p.Roles {
		if r.Name == role {
			return i
		}
	}
	return len(p.Roles)
}
