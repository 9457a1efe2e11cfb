package nomad

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// contractImpl adapts translate/contract's Nomad rendering.
type contractImpl struct{}

func contractOptions(p *translate.Plan) contract.Options {
	return contract.Options{User: p.User, Contracts: p.Contracts}
}

func (contractImpl) Services(p *translate.Plan, jobID string) ([]Service, error) {
	opts := contractOptions(p)
	var out []Service
	for _, s := range contract.NomadServicesFor(p.Job, jobID, opts) {
		svc := Service{Role: s.Role, Name: s.Name, PortLabel: s.PortLabel, Tags: s.Tags}
		if s.Label == contract.LeinaoLabel {
			svc.To = leinaoBase + s.Ordinal
		}
		out = append(out, svc)
	}
	return out, nil
}

// leinaoBase is the first of LeinaoPAI's fixed container ports (10001..3).
const leinaoBase = 10001

func (contractImpl) EnvTemplate(p *translate.Plan, role *jobs.Role, jobID, process string) (string, error) {
	opts := contractOptions(p)
	opts.Process = process
	return contract.NomadTemplate(p.Job, role.Name, jobID, opts)
}

func (contractImpl) Processes(p *translate.Plan) []string {
	return contract.Processes(p.Job, contractOptions(p))
}

// needsWorkDir: PAI's runtime exported PAI_WORK_DIR=$(pwd) right before
// the user command.
func needsWorkDir(p *translate.Plan) bool { return contract.NeedsWorkDir(p.Job, contractOptions(p)) }
