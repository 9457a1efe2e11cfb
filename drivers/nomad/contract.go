package nomad

import (
	"errors"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// ErrNoContract: the Nomad rendering of the environment contract is missing.
var ErrNoContract = errors.New("the Nomad rendering of the environment contract is not available")

// Service is one group service: what the rendezvous barrier waits for and
// what the contract template reads (translate/contract decides names, port
// labels and tags; Render only places them).
type Service struct {
	Role      string   // the jobs.Role name
	Name      string   // Nomad service name (valid, ≤ 63 characters)
	PortLabel string   // a port label of the role's group network ("" = none)
	Tags      []string // must include "idx-${NOMAD_ALLOC_INDEX}"
	// To is the fixed port inside the task's container the label maps to
	// (LeinaoPAI's 10001..10003); 0 = the task binds the host port itself.
	To int
}

// Contract is what Render needs from translate/contract. It is an interface
// so tests of Render alone can pin the contract's output; the driver always
// uses the real one (contractImpl).
type Contract interface {
	// Services are the group services of the job, every role.
	Services(p *translate.Plan, jobID string) ([]Service, error)
	// EnvTemplate is the consul-template text (env = true) that gives a
	// task of role its environment contract, for one of its processes
	// (contract.ProcessMain = "" or contract.ProcessPS). snapshot is the
	// path of the topology snapshot Variable to read the peers from
	// (topology.go), "" = from the service registrations.
	EnvTemplate(p *translate.Plan, role *jobs.Role, jobID, process, snapshot string) (string, error)
	// EnvShell is EnvTemplate from the snapshot Variable snapshot as a
	// file for sh to source (shellenv.go, contract.NomadSnapshotShell);
	// an error wrapping contract.ErrShellNames when a name cannot be set
	// by a shell.
	EnvShell(p *translate.Plan, role *jobs.Role, jobID, process, snapshot string) (string, error)
	// Processes are the processes every allocation runs:
	// [contract.ProcessMain], or [ProcessMain, ProcessPS] for a UAI job of
	// more than one node (a parameter server next to the training task).
	Processes(p *translate.Plan) []string
}
