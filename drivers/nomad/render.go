package nomad

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

// Version is recorded in job meta (set by the CLI from its own version).
var Version = "0.1.0-dev"

// renderer builds one api.Job of a decided shape (shape.go): it reads
// the shape and decides nothing.
type renderer struct {
	plan     *translate.Plan
	set      settings
	contract Contract
	jobID    string
	diags    hcl.Diagnostics
	shape    *Shape
	// snapPorts: each group's port slots in snapshot mode (MetaSnapPorts).
	snapPorts map[string][]snapService
	// barrierTmpl: the barrier template, the same in every group (it names
	// every service of the job), rendered once and shared.
	barrierTmpl string
}

// BuildJob renders p as a sparse (not canonicalised) api.Job: only what
// jobshift decides is set, Nomad applies its own defaults on submit. Its
// shape is Decide's for the plan's OptWatched.
func BuildJob(p *translate.Plan, c Contract) (*api.Job, hcl.Diagnostics) {
	job, _, diags := buildJob(p, c)
	return job, diags
}

// buildJob decides the shape of p and renders it: the one path of
// Render, Submit and PlanDiff.
func buildJob(p *translate.Plan, c Contract) (*api.Job, *Shape, hcl.Diagnostics) {
	defer p.Hold()() // asked per group: once, not per group
	set, diags := settingsFor(p)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	if c == nil {
		c = &contractImpl{}
	}
	shape, decided := decide(p, set, Watched(p), c)
	if decided.HasErrors() {
		return nil, nil, append(diags, decided...)
	}
	r := &renderer{plan: p, set: set, contract: c, jobID: JobIDFor(p), diags: diags, shape: shape}
	job := r.job()
	// the shape's warnings after the job's own errors, which matter more
	r.diags = append(r.diags, decided...)
	if r.diags.HasErrors() {
		return nil, nil, r.diags
	}
	return job, shape, r.diags
}

// JobIDFor is the Nomad job ID of a plan: Options["id"] when given, else
// UserJobID of the submitting user and the job's name.
func JobIDFor(p *translate.Plan) string {
	if id := p.Options["id"]; id != "" {
		return JobID(id)
	}
	return UserJobID(p.User, p.Job.Name)
}

func (r *renderer) errorf(pos jobs.Pos, summary, format string, args ...any) {
	r.diags = append(r.diags, jobs.Errorf(pos, summary, format, args...))
}

func (r *renderer) job() *api.Job {
	j := r.plan.Job
	r.checkSteps(j)
	job := &api.Job{
		ID:   new(r.jobID),
		Name: new(r.jobID),
		Type: new("batch"),
		Meta: map[string]string{
			MetaVersion: Version,
			MetaFormat:  r.plan.Origin(),
			MetaName:    j.Name,
			MetaAttempt: "0",
			MetaUser:    r.plan.User,
		},
	}
	if j.Source.Path != "" && j.Source.Path != "-" {
		job.Meta[MetaSource] = j.Source.Path
	}
	if pol, err := policyMeta(r.plan.Compiled().Policy); err == nil {
		job.Meta[MetaPolicy] = pol
	}
	if r.set.Region != "" {
		job.Region = new(r.set.Region)
	}
	if ns := namespaceFor(r.set, r.plan.User); ns != "" {
		job.Namespace = new(ns)
	}
	if len(r.set.Datacenters) > 0 {
		job.Datacenters = r.set.Datacenters
	}
	if r.set.NodePool != "" {
		job.NodePool = new(r.set.NodePool)
	}
	if r.set.Priority > 0 {
		job.Priority = new(r.set.Priority)
	}

	services, err := r.contract.Services(r.plan, r.jobID)
	if err != nil {
		r.errorf(j.NamePos, "Cannot render the environment contract", "%v", err)
		return nil
	}
	byRole := map[string][]Service{}
	for _, s := range services {
		byRole[s.Role] = append(byRole[s.Role], s)
	}
	r.rendezvous(job, byRole)
	storeShape(job, r.shape)
	seen := map[string]string{}
	for _, role := range j.Roles {
		g := r.group(role, r.shape.Group(role.Name), byRole[role.Name], services)
		if g == nil {
			continue
		}
		if other, dup := seen[*g.Name]; dup {
			r.errorf(role.Pos, "Role names collide on Nomad", "Roles %q and %q both become task group %q (Nomad group names keep only [A-Za-z0-9_.-]); rename one of them.", other, role.Name, *g.Name)
			continue
		}
		seen[*g.Name] = role.Name
		job.TaskGroups = append(job.TaskGroups, g)
	}
	if r.shape.DistinctHosts {
		job.Constraints = append(job.Constraints, distinctHosts)
	} else if c := spreadConstraint(j.TaskCount(), r.set.SpreadNodes); c != nil {
		job.Constraints = append(job.Constraints, c)
	}
	return job
}

// rendezvous writes the snapshot's port slots when the shape meets
// through the snapshot, and says so in job meta (the watcher writes it
// only then).
func (r *renderer) rendezvous(job *api.Job, byRole map[string][]Service) {
	if r.shape.Rendezvous != RendezvousSnap {
		return
	}
	job.Meta[MetaRendezvous] = RendezvousSnap
	r.snapPorts = map[string][]snapService{}
	for _, g := range snapGroupsOf(r.plan.Job, byRole) {
		r.snapPorts[g.name] = g.services
	}
}

// snapGroupsOf numbers the job's services as contract.NomadServicesFor
// lists them (role by role), the numbers the snapshot's port items use.
func snapGroupsOf(j *jobs.Job, byRole map[string][]Service) []snapGroup {
	var groups []snapGroup
	n := 0
	for _, role := range j.Roles {
		g := snapGroup{name: groupName(role.Name), count: role.Instances}
		for _, s := range byRole[role.Name] {
			g.services = append(g.services, snapService{n: n, label: s.PortLabel})
			n++
		}
		groups = append(groups, g)
	}
	return groups
}

// spreadConstraint caps the job's allocations per client so that they
// cover at least min(tasks, nodes) clients when tasks ≤ nodes, and spread
// evenly otherwise. Neither the spread scheduler algorithm nor a spread
// block does it: both count allocations per task group, so a 3-task job
// of two groups landed on 2 of 3 clients. A job-level distinct_property
// counts across groups (Nomad scheduler/propertyset.go); distinct_hosts
// would refuse jobs with more tasks than clients.
func spreadConstraint(tasks, nodes int) *api.Constraint {
	if nodes <= 0 || tasks <= 1 {
		return nil
	}
	return &api.Constraint{
		LTarget: "${node.unique.id}",
		Operand: api.ConstraintDistinctProperty,
		RTarget: strconv.Itoa((tasks + nodes - 1) / nodes),
	}
}

// group renders the task group of role as gs, its shape, lists it.
func (r *renderer) group(role *jobs.Role, gs *GroupShape, own, all []Service) *api.TaskGroup {
	g := &api.TaskGroup{
		Name:  new(gs.Group),
		Count: new(role.Instances),
		Meta:  map[string]string{MetaRole: role.Name},
		// A replaced alloc gets new ports while its peers keep the old
		// ones, so a failure fails the attempt and retries are whole-job
		// (as on OpenPAI with gang allocation).
		RestartPolicy:    &api.RestartPolicy{Attempts: new(0), Mode: new("fail")},
		ReschedulePolicy: &api.ReschedulePolicy{Attempts: new(0), Unlimited: new(false)},
	}
	storeGroupShape(g, gs)
	for _, a := range gs.Requires {
		g.Constraints = append(g.Constraints, &api.Constraint{LTarget: "${attr." + a.Attr + "}", RTarget: a.Value, Operand: "="})
	}
	g.Volumes = groupVolumes(gs)
	net := r.network(gs, own)
	if net != nil {
		g.Networks = []*api.NetworkResource{net}
	}
	if r.shape.Rendezvous == RendezvousSnap {
		// The coordinator reads the placements, not registrations: no
		// services, only which port goes to which snapshot item.
		g.Meta[MetaSnapPorts] = snapPortsMeta(r.snapPorts[*g.Name])
	} else {
		g.Services = groupServices(own)
	}
	procs := r.contract.Processes(r.plan)
	for _, ts := range gs.Tasks {
		var t *api.Task
		switch ts.Name {
		case BarrierTask:
			t = r.barrier(role, gs, all)
		case SSHKeyTask:
			t = r.sshKeyTask()
		case InitTask:
			t = r.initTask(role, gs, net)
		case WaitTask:
			t = r.waitTask(role)
		case ScratchTask:
			t = r.scratchTask(role, gs)
		case UnmountTask:
			t = r.unmountTask(gs)
		case MainTask:
			t = r.mainTask(role, gs, net, "")
		case PSTask:
			// A UAI node: the parameter server runs the same command with
			// its own TF_CONFIG. It never ends by itself and does not
			// decide the task's outcome (observe reads MainTask's exit).
			// It lives until the job's verdict stops the job: other
			// nodes' training tasks, and the chief's final checkpoint,
			// still need a node's PS after that node's own training task
			// ended (stopping it then made peers on other hosts fail with
			// "connection refused"). So no task leads the group, and a
			// poststart task judges once the training task ended
			// (finisher.go, JudgeTask).
			t = r.mainTask(role, gs, net, procs[1])
		case JudgeTask:
			t = r.judge()
		case FinisherTask:
			t = r.finisher()
		}
		if t == nil {
			return nil
		}
		g.Tasks = append(g.Tasks, t)
	}
	if r.set.NoTaskLogs {
		disableLogs(g.Tasks)
	}
	return g
}

// disableLogs turns off Nomad's log collection for every task of a group
// (site config task_logs = false): the client then starts no logmon
// process per task, which at 1,000 tasks is ≈ 13 GB of private memory
// (BENCHMARKS.md, "1,000 tasks"), and points the task's stdout and stderr
// at /dev/null, so `nomad alloc logs` and `jobshift logs` have nothing
// to show. Every task, not only the main one: each would start its own.
func disableLogs(tasks []*api.Task) {
	for _, t := range tasks {
		t.LogConfig = &api.LogConfig{Disabled: new(true)}
	}
}

// network declares one dynamic port per label the role's services use. A
// label with a fixed container port (LeinaoPAI's 10001..) needs, on the
// docker driver, a container in a bridge network: Docker maps each to a
// dynamic host port (`to`). Every other driver runs the task in the host's
// network, where the fixed port is the host port: it is reserved as a
// static port (so the port map is the identity, PAI_PORT_MAP_10001=10001)
// and the job gets a distinct_hosts constraint (Shape.DistinctHosts), since two such
// tasks can never share a node.
// groupServices are the group's Nomad-native services (the barrier's
// rendezvous and the registration-reading template).
func groupServices(own []Service) []*api.Service {
	var out []*api.Service
	for _, s := range own {
		out = append(out, &api.Service{Name: s.Name, PortLabel: s.PortLabel, Tags: s.Tags, Provider: "nomad"})
	}
	return out
}

func (r *renderer) network(gs *GroupShape, own []Service) *api.NetworkResource {
	n := &api.NetworkResource{}
	seen := map[string]bool{}
	for _, s := range own {
		if s.PortLabel == "" || seen[s.PortLabel] {
			continue
		}
		seen[s.PortLabel] = true
		switch {
		case s.To > 0 && gs.HostPorts:
			n.ReservedPorts = append(n.ReservedPorts, api.Port{Label: s.PortLabel, Value: s.To})
		default:
			n.DynamicPorts = append(n.DynamicPorts, api.Port{Label: s.PortLabel, To: s.To})
		}
	}
	if len(n.DynamicPorts)+len(n.ReservedPorts) == 0 {
		for _, s := range own {
			if s.PortLabel == "" {
				// An address-only service registers the group network's IP.
				return n
			}
		}
		return nil
	}
	return n
}

// distinctHosts is the constraint that keeps every allocation of the job
// on a node of its own (job level: across all groups).
var distinctHosts = &api.Constraint{Operand: api.ConstraintDistinctHosts, RTarget: "true"}

// bridged reports whether the role's ports are mapped into a container.
func bridged(net *api.NetworkResource) bool {
	if net == nil {
		return false
	}
	for _, p := range net.DynamicPorts {
		if p.To > 0 {
			return true
		}
	}
	return false
}

// resources maps the role's request. CPU: MHz when the site says how many
// MHz a core is, else exclusive whole cores.
func (r *renderer) resources(role *jobs.Role) *api.Resources {
	res := &api.Resources{}
	cpu, mem := role.Resources.CPUMilli, role.Resources.MemoryMiB
	if rule := r.plan.Site.Role(role.Name); rule != nil {
		if rule.CPUMilli > 0 {
			cpu = rule.CPUMilli
		}
		if rule.MemoryMiB > 0 {
			mem = rule.MemoryMiB
		}
	}
	if cpu > 0 {
		if r.set.CPUMHzPerCore > 0 {
			res.CPU = new(int(max(1, (cpu*int64(r.set.CPUMHzPerCore)+999)/1000)))
		} else {
			res.Cores = new(int((cpu + 999) / 1000))
		}
	}
	if mem > 0 {
		res.MemoryMB = new(int(mem))
	}
	if n := role.Resources.GPU; n > 0 {
		d := &api.RequestedDevice{Name: "nvidia/gpu", Count: new(uint64(n))}
		if t := role.Resources.GPUType; t != "" {
			if rule := r.plan.Site.GPUType(t); rule != nil {
				if rule.Model != "" {
					d.Constraints = append(d.Constraints, &api.Constraint{LTarget: "${device.model}", RTarget: rule.Model, Operand: "="})
				}
				if rule.MinMemoryMiB > 0 {
					d.Constraints = append(d.Constraints, &api.Constraint{LTarget: "${device.attr.memory}", RTarget: fmt.Sprintf("%d MiB", rule.MinMemoryMiB), Operand: ">="})
				}
			}
		}
		res.Devices = []*api.RequestedDevice{d}
	}
	return res
}

// sortedKeys returns m's keys in order (stable output).
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func durationPtr(d time.Duration) *time.Duration { return &d }

// quoteTemplateString makes s a Go template string literal.
func quoteTemplateString(s string) string {
	return `"` + templateEscaper.Replace(s) + `"`
}

// templateEscaper is built once: a strings.Replacer compiles its table on
// first use, which cost more than the replacing for the short strings here.
var templateEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)
