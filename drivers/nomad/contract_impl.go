package nomad

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// contractImpl adapts translate/contract's Nomad rendering of the plan's
// compiled contract (translate.Plan.Contract: compiled once per plan).
type contractImpl struct{}

// ContractOptions are the contract options of a plan on Nomad: the plan's,
// with the ssh emulation's MPI directory of this job (the template
// differential test evaluates the oracle with the same options).
func ContractOptions(p *translate.Plan) contract.Options {
	o := p.Compiled().ContractOn(sshMPIDir(JobIDFor(p)))
	// the role that gets peers' names runs under the task view unless its
	// driver runs an image (taskns falls back to the addresses on a
	// client without namespaces)
	if name := contract.NamesRole(p.Job); name != "" {
		set, _ := settingsFor(p)
		driver := set.Driver
		if rule := p.Site.Role(name); rule != nil && rule.Driver != "" {
			driver = rule.Driver
		}
		o.HostNames = !TraitsOf(driver).Container
	}
	// Volcano's svc plugin names every task (contract.PeerHostsVar): the
	// roles under the task view resolve them
	if p.Job.Extras.Volcano.Plugin("svc") != nil && roleDrivers(p, false) {
		o.HostNames = true
	}
	// and a container of Volcano's TensorFlow shape (one task per node)
	// gets them as extra_hosts (containerHostName)
	o.PeerEntries = peerEntries(p)
	return o
}

// peerEntries: the job's containers resolve every task's svc names through
// their extra_hosts (contract.Options.PeerEntries): a job in Volcano's
// TensorFlow shape, whose tasks each have a node (fixedPortPeers), so no
// peer's name is this node's address. Not in the site's Docker network
// (ownNetwork), whose DNS resolves them to the containers' own addresses.
func peerEntries(p *translate.Plan) bool {
	if contract.VolcanoFixedPortPeers(p.Job) == "" || !roleDrivers(p, true) {
		return false
	}
	set, _ := settingsFor(p)
	net, _ := ownNetwork(p, set)
	return net == ""
}

// roleDrivers: some role of p runs on a driver that runs an image
// (container), or on one without (under the task view).
func roleDrivers(p *translate.Plan, container bool) bool {
	set, _ := settingsFor(p)
	for _, r := range p.Job.Roles {
		driver := set.Driver
		if rule := p.Site.Role(r.Name); rule != nil && rule.Driver != "" {
			driver = rule.Driver
		}
		if TraitsOf(driver).Container == container {
			return true
		}
	}
	return false
}

func (c *contractImpl) compile(p *translate.Plan) (*contract.Compiled, error) {
	return p.Contract(ContractOptions(p))
}

func (*contractImpl) Services(p *translate.Plan, jobID string) ([]Service, error) {
	c := p.Compiled()
	var out []Service
	for _, s := range contract.NomadServicesFor(p.Job, jobID, c.Contract) {
		svc := Service{Role: s.Role, Name: s.Name, PortLabel: s.PortLabel, Tags: s.Tags}
		if rp := c.Role(s.Role); rp != nil {
			for _, port := range rp.Ports {
				if port.Label == s.Label && port.Container > 0 {
					svc.To = port.Container + s.Ordinal // fixed container ports (LeinaoPAI)
				}
			}
		}
		out = append(out, svc)
	}
	return out, nil
}

func (c *contractImpl) EnvTemplate(p *translate.Plan, role *jobs.Role, jobID, process, snapshot string) (string, error) {
	cj, err := c.compile(p)
	if err != nil {
		return "", err
	}
	if snapshot != "" {
		return cj.NomadSnapshotTemplate(role.Name, process, jobID, contract.Snapshot{Path: snapshot, AttemptEnv: attemptEnv})
	}
	return cj.NomadTemplate(role.Name, process, jobID)
}

func (c *contractImpl) EnvShell(p *translate.Plan, role *jobs.Role, jobID, process, snapshot string) (string, error) {
	cj, err := c.compile(p)
	if err != nil {
		return "", err
	}
	return cj.NomadSnapshotShell(role.Name, process, jobID, contract.Snapshot{Path: snapshot, AttemptEnv: attemptEnv})
}

func (*contractImpl) Processes(p *translate.Plan) []string {
	return p.Compiled().Processes
}
