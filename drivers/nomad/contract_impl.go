package nomad

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// contractImpl adapts translate/contract's Nomad rendering.
type contractImpl struct{}

func (contractImpl) Services(p *translate.Plan, jobID string) ([]Service, error) {
	return nil, fmt.Errorf("%w (translate/contract.NomadServices has not landed)", ErrNoContract)
}

func (contractImpl) EnvTemplate(p *translate.Plan, role *jobs.Role, jobID string) (string, error) {
	return "", fmt.Errorf("%w (translate/contract.NomadTemplate has not landed)", ErrNoContract)
}
