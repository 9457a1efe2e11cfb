package nomad

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// The shape of a Nomad job: every mode the driver can give it, decided
// once, by Decide, from the plan, the site's settings and one input that
// is not in either: whether anybody watches the job (jobshift run, the
// controller) or not (a converted file submitted with `nomad job run`,
// run -detach). Render, Submit and PlanDiff all build the job from the
// same Shape, so what `convert` prints is what `run` submits for the same
// input; the renderers read it and decide nothing.
//
// Adding a concern (a role's storage mounts, its platform files, init
// tasks, the step order of jobs.Role.DependsOn) is adding a row, not a
// condition in a renderer: a field of GroupShape (or a task of
// GroupShape.Tasks, or a Wrapper of the main task) decided in
// decider.group with a Why line, and read by the renderer alone —
// renderer.group's switch over the shape's tasks for a task of its own
// (an init container: a prestart TaskShape before MainTask), mainTask for
// what the main task carries (mounts, files: a field the task's volume
// mounts or templates are built from), a Wrapper in mainWrappers for what
// runs around the command (waiting for the steps a role depends on, which
// Nomad cannot order across groups). Then add a job kind that has it to
// shapeJobs (shape_test.go), check it in checkRendered, and regenerate the
// table (go test ./drivers/nomad -run 'TestShapeTable|TestShapeDocIsCurrent'
// -update): doc.go shows every shape the driver can produce.
//
// The model is Nomad's own task runner (client/allocrunner/taskrunner/
// task_runner_hooks.go, initHooks, v1.11.3): every concern a task gets is
// listed in one function, each behind one visible condition; and what a
// task driver can do is data (plugins/drivers Capabilities), here Traits.

// OptOneClient is the plan option saying that the cluster has one client
// where the job can run ("true"; Submit finds it for a job that asks,
// oneClientMatters): the job's tasks share it whatever their
// constraints. It is an input of the shape like OptWatched.
const OptOneClient = "one_client"

// Shape.Clients: the cluster the shape is for.
const (
	ClientsOne     = "one"
	ClientsSeveral = "several"
)

// clientsOf is Shape.Clients for p.
func clientsOf(p *translate.Plan) string {
	switch {
	case !oneClientMatters(p):
		return ""
	case p.Options[OptOneClient] == "true":
		return ClientsOne
	}
	return ClientsSeveral
}

// OptWatched is the plan option saying whether a watcher follows the job:
// "true" (jobshift run, which then watches; the controller), anything else
// no (convert's default, run -detach). It is the one input the shape takes
// besides the plan and the site config.
const OptWatched = "watched"

// Watched reads OptWatched.
func Watched(p *translate.Plan) bool { return p.Options[OptWatched] == "true" }

// Rendezvous modes besides the barrier and the snapshot (topology.go).
const RendezvousNone = "none"

// EnvWay is how a main task's environment contract arrives.
type EnvWay string

const (
	// EnvRegistrations: an env template over the group service
	// registrations, rendered once after the rendezvous.
	EnvRegistrations EnvWay = "template over registrations"
	// EnvSnapTemplate: an env template over the group's snapshot Variable.
	EnvSnapTemplate EnvWay = "template over the snapshot"
	// EnvSourced: a file rendered from the snapshot, sourced by sh
	// (env-wait, shellenv.go), the task started before the snapshot.
	EnvSourced EnvWay = "sourced file"
	// EnvInTask: the helper's nomad-env evaluates the contract in the task
	// (taskenv.go).
	EnvInTask EnvWay = "nomad-env in the task"
)

// ViewWay is how a main task's task namespace files (the wrapper's
// script, its spec, the role's platform files: view.go) arrive.
type ViewWay string

const (
	// ViewTemplates: Nomad templates in the task directory.
	ViewTemplates ViewWay = "templates"
	// ViewInTask: nomad-env writes them before it execs the wrapper.
	ViewInTask ViewWay = "nomad-env"
)

// Judge is who applies the job's completion rules.
type Judge string

const (
	JudgeWatcher  Judge = "watcher"           // jobshift run's, or the controller's
	JudgePoststop Judge = "poststop finisher" // FinisherTask
	JudgeInTask   Judge = "in-task finisher"  // the wrapper execs nomad-finish -exit
	JudgeUAI      Judge = "UAI judge"         // JudgeTask, poststart
	// JudgeNobody: nothing inside the job judges; only a controller, or
	// `jobshift watch -enforce`, would.
	JudgeNobody Judge = "none in the job (a controller or watch -enforce)"
)

// Wrapper is one layer around a task's command, outermost first.
type Wrapper string

const (
	WrapEnvHelper Wrapper = "nomad-env"      // <env helper> nomad-env -- ...
	WrapEnvWait   Wrapper = "env-wait"       // sh -c env-wait.sh ...
	WrapTaskNS    Wrapper = "task namespace" // sh jobshift-taskns.sh SPEC -- ... (view.go)
	WrapSSH       Wrapper = "ssh"            // sshemu.sh -- ... (or its idle sshd)
	WrapRestart   Wrapper = "restart loop"   // restart-loop.sh
	WrapStop      Wrapper = "stop group"     // stop-group.sh
	WrapLogDrain  Wrapper = "log drain tail" // a second before the wrapper ends (Traits.LogsCutAtExit)
	WrapFinisher  Wrapper = "finisher tail"
)

// Traits are what a Nomad task driver gives a task, as data (Nomad's
// plugins/drivers Capabilities): the renderer and Decide read these,
// never the driver's name.
type Traits struct {
	// Container: the task runs an image (entrypoint/args, its own root):
	// a host binary need not be there, nor /bin/sh.
	Container bool
	// HostBinaries: a host binary at any path is visible to the task
	// (raw_exec); ChrootBinaries: only under Nomad's default chroot_env
	// (exec: defaultChroot).
	HostBinaries, ChrootBinaries bool
	// GroupSignal: Nomad's stop signal reaches only the task's top
	// process, so a stop must be passed to its process group (stopWrap);
	// a container's PID 1 gets it as from a pod's runtime.
	GroupSignal bool
	// MapsPorts: a fixed container port is mapped to a dynamic host port
	// (docker's bridge network); otherwise it is reserved on the host and
	// no two tasks of the job may share a node.
	MapsPorts bool
	// VolumeMounts: Nomad mounts a group volume into the task
	// (volume_mount; Capabilities.MountConfigs, which raw_exec's is
	// MountConfigSupportNone: drivers/rawexec/driver.go, v1.11.3).
	VolumeMounts bool
	// NodeMounts: the task starts in the node's own mount namespace
	// (raw_exec: a child of the client; exec's is its executor's,
	// docker's and podman's the container's), so a mount its view makes
	// before its namespace (as root) is the node's, which the
	// allocation's other tasks see.
	NodeMounts bool
	// LogsCutAtExit: the task's output reaches its log through a logger
	// the driver stops as soon as the task exits, losing what it has not
	// streamed yet: all of a container that ends within a few ms of its
	// start, the last lines of others. Docker's: the handle stops
	// docklog when the container's wait returns (drivers/docker/handle.go
	// run → shutdownLogger, v1.11.3); hashicorp/nomad#6931, open, whose
	// maintainers' workaround is a short sleep before the task exits.
	LogsCutAtExit bool
}

// driverTraits is the table of the task drivers jobshift renders for.
// A driver not in it (a site's own) gets otherTraits: a host-side
// command like exec, with no binary of the host assumed.
var driverTraits = map[string]Traits{
	"raw_exec": {HostBinaries: true, GroupSignal: true, NodeMounts: true},
	"exec":     {ChrootBinaries: true, GroupSignal: true, VolumeMounts: true},
	"docker":   {Container: true, MapsPorts: true, VolumeMounts: true, LogsCutAtExit: true},
	"podman":   {Container: true, VolumeMounts: true}, // network_mode = "host": no port mapping
}

var otherTraits = Traits{GroupSignal: true}

// TraitsOf is driver's row of driverTraits.
func TraitsOf(driver string) Traits {
	if t, ok := driverTraits[driver]; ok {
		return t
	}
	return otherTraits
}

// Shape is every decision about one Nomad job.
type Shape struct {
	Watched bool
	// Clients: for a job whose shape depends on the cluster's clients
	// (oneClientMatters, and no Docker network of the site's makes it the
	// same on any), ClientsOne or ClientsSeveral by OptOneClient; "" for
	// any other job.
	Clients string
	// Rendezvous: RendezvousNone (one task), RendezvousBarrier (a prestart
	// task per allocation over group services), RendezvousSnap (the
	// watcher's topology snapshot, no services).
	Rendezvous string
	// DistinctHosts: some group reserves fixed ports on its hosts.
	DistinctHosts bool
	// TaskNets: each main task gets a network of its own on its client
	// (drivers/taskns Net, in the task view), as each pod had: the job's
	// tasks listen on one port and share the cluster's one client.
	TaskNets bool
	Groups   []GroupShape
	Why      []string // one line per job-level decision
}

// GroupShape is every decision about one role's task group.
type GroupShape struct {
	Role, Group, Driver string
	Traits              Traits
	// HostPorts: the role's fixed container ports are reserved on the
	// host (no MapsPorts).
	HostPorts bool
	Env       EnvWay
	Judges    []Judge
	// Tasks in the group's order, each with its wrappers.
	Tasks []TaskShape
	// Finisher is the helper the main task's wrapper execs when its
	// command ended for good ("" = none: JudgeInTask not in Judges).
	Finisher string
	// View: how the main task's namespace files arrive ("" = it runs
	// under no task namespace wrapper).
	View ViewWay
	// Mounts: the role's site-mapped volumes at the job's paths (mounts.go).
	Mounts []MountShape
	// Network: the user-defined Docker network the group's containers
	// join, the main task with its platform host names as network_aliases
	// ("" = the host's network, or Docker's bridge where ports are
	// mapped: ownNetwork).
	Network string
	// Requires: node attributes the group's clients must have (a group
	// constraint each), so that a client that cannot run the group is
	// never chosen and the placement report names the attribute.
	Requires []NodeAttr
	Why      []string // one line per decision
}

// NodeAttr is a node attribute a group needs, as a constraint
// ${attr.<Attr>} = Value.
type NodeAttr struct{ Attr, Value string }

// TaskShape is one task of a group.
type TaskShape struct {
	Name string
	// Hook is its lifecycle hook ("" = a main task).
	Hook     string
	Wrappers []Wrapper // outermost first; the command is innermost
}

// Group is the shape of role's group (nil when the role has none).
func (s *Shape) Group(role string) *GroupShape {
	for i := range s.Groups {
		if s.Groups[i].Role == role {
			return &s.Groups[i]
		}
	}
	return nil
}

// Has reports whether the group has a task of that name.
func (g *GroupShape) Has(task string) bool {
	for _, t := range g.Tasks {
		if t.Name == task {
			return true
		}
	}
	return false
}

// Decide is the shape of the job p on the site p.Site, watched or not,
// with the real environment contract.
func Decide(p *translate.Plan, watched bool) (*Shape, hcl.Diagnostics) {
	set, diags := settingsFor(p)
	if diags.HasErrors() {
		return nil, diags
	}
	s, more := decide(p, set, watched, &contractImpl{})
	return s, append(diags, more...)
}

// settingsFor is the site's nomad block with the plan's overrides.
func settingsFor(p *translate.Plan) (settings, hcl.Diagnostics) {
	set, diags := newSettings(p.Site)
	if h := p.Options[OptHelper]; h != "" {
		set.Helper = h
	}
	if h := p.Options[OptEnvHelper]; h != "" {
		set.EnvHelper = h
	}
	if wd := p.Options[OptWorkDir]; wd != "" {
		set.WorkDir = wd
	}
	return set, diags
}

// decide is Decide with the contract c (tests pin it).
func decide(p *translate.Plan, set settings, watched bool, c Contract) (*Shape, hcl.Diagnostics) {
	d := &decider{p: p, set: set, c: c, jobID: JobIDFor(p), s: &Shape{Watched: watched, Clients: clientsOf(p)}}
	services, err := c.Services(p, d.jobID)
	if err != nil {
		return nil, hcl.Diagnostics{jobs.Errorf(p.Job.NamePos, "Cannot render the environment contract", "%v", err)}
	}
	d.byRole = map[string][]Service{}
	for _, sv := range services {
		d.byRole[sv.Role] = append(d.byRole[sv.Role], sv)
	}
	d.rendezvous()
	for _, role := range p.Job.Roles {
		d.s.Groups = append(d.s.Groups, d.group(role))
	}
	for _, g := range d.s.Groups {
		if g.HostPorts {
			d.s.DistinctHosts = true
			d.s.Why = append(d.s.Why, "distinct_hosts: group "+g.Group+" reserves fixed ports on its host ("+g.Driver+" maps no ports)")
			break
		}
	}
	d.fixedPortPeers()
	return d.s, d.diags
}

// fixedPortPeers: a job in Volcano's TensorFlow shape (its tasks listen on
// a port of their own at the names of /etc/volcano/*.host) needs a network
// per task, as every pod had its own on Kubernetes: in docker, a network
// of the site's on one client (ownNetwork); under raw_exec's task view on
// a cluster of one client (OptOneClient), a network namespace per task on
// it (TaskNets); else a node per task, distinct_hosts. Not exec for
// TaskNets: its tasks get neither CAP_SYS_ADMIN nor CAP_NET_ADMIN (Nomad's
// default capabilities, drivers/shared/capabilities/defaults.go
// NomadDefaults, v1.11.3) and a PID namespace of their own, so their view
// makes no namespace as root and finds no peer's link (tried on the dev
// agent: every task refused). The peers' names resolve under the task
// view (contract.PeerHostsVar), in a docker container's extra_hosts
// (containerHostName) or by Docker's DNS in the site's network.
func (d *decider) fixedPortPeers() {
	role := contract.VolcanoFixedPortPeers(d.p.Job)
	if role == "" {
		return
	}
	net, why := ownNetwork(d.p, d.set)
	if net != "" {
		d.s.Clients = "" // the same job on one client or several
		for i := range d.s.Groups {
			g := &d.s.Groups[i]
			g.Network = net
			g.Why = append(g.Why, "docker network "+net+" (nomad.docker_network): the container has a network of its own there, its pod's names as network_aliases, which Docker's DNS resolves for its peers; its /etc/hosts names only itself (hostname)")
		}
		d.s.Why = append(d.s.Why, "no distinct_hosts: role "+role+" listens on a port of its own at the names of /etc/volcano/*.host, and every task has a network of its own in Docker network "+net)
		return
	}
	if d.netsAsked() && !slices.ContainsFunc(d.s.Groups, func(g GroupShape) bool { return g.View == "" || !g.Traits.HostBinaries }) {
		d.s.TaskNets = true
		d.s.Why = append(d.s.Why, "task networks: role "+role+" listens on a port of its own at the names of /etc/volcano/*.host (each pod had its own network) and the job's tasks share the cluster's one client: each gets a network namespace of its own on it (task view), not distinct_hosts")
		return
	}
	d.s.DistinctHosts = true
	line, hint := "distinct_hosts: role "+role+" listens on a port of its own at the names of /etc/volcano/*.host (each pod had its own network)", ""
	if d.groupsOn("docker") > 0 {
		line += "; no Docker network per task: " + why
	}
	if networkWouldFix(d.p, d.set) {
		hint = " " + dockerNetworkHint
	}
	d.s.Why = append(d.s.Why, line)
	d.diags = append(d.diags, jobs.Warnf(d.p.Job.NamePos, "One task per node",
		"Role %s builds its peers' addresses from /etc/volcano/*.host with a port of its own, as on Kubernetes, where every pod had its own network: each of the job's %d tasks needs a client node of its own (distinct_hosts).%s", role, d.p.Job.TaskCount(), hint))
	for _, g := range d.s.Groups {
		if g.Traits.Container && g.Driver != "docker" {
			d.diags = append(d.diags, jobs.Warnf(d.p.Job.NamePos, "Peers not reachable by name",
				"Role %s reads its peers' names from /etc/volcano/*.host; a %s task's /etc/hosts names only the task itself, so its peers' names do not resolve. Run the job with raw_exec or exec, where the task view resolves them, or docker, whose extra_hosts name them.", role, g.Driver))
			return
		}
	}
}

// netsAsked: the job's tasks would each get a network of their own on the
// one client if every group runs under the task view (fixedPortPeers).
// Not under the ssh emulation: its config names every sshd at the
// client's address, which a task's own network does not reach (as for
// ownNetwork).
func (d *decider) netsAsked() bool {
	if d.p.Options[OptOneClient] != "true" || !oneClientMatters(d.p) {
		return false
	}
	for _, r := range d.p.Job.Roles {
		if cr := d.p.Compiled().Role(r.Name); cr.SSH || cr.SSHIdle {
			return false
		}
	}
	return true
}

// oneClientMatters: the shape of p's job depends on OptOneClient.
func oneClientMatters(p *translate.Plan) bool {
	return contract.VolcanoFixedPortPeers(p.Job) != ""
}

// dockerNetworkHint is what a docker job of Volcano's TensorFlow shape
// without nomad.docker_network is told (fixedPortPeers, hostNetHint).
const dockerNetworkHint = "On one client, its docker tasks can each have a network of their own instead: create a Docker network there (docker network create jobshift) and name it in jobshift.hcl's nomad block (docker_network = \"jobshift\")."

// ownNetwork is the Docker network in which each task of a job in
// Volcano's TensorFlow shape has a network of its own, as its pod had, so
// that all can listen on the same port on one client; "" and why not
// otherwise. Docker gives a container of a user-defined network its own
// address and resolves the network_aliases of the network's containers
// by its embedded DNS (Nomad passes them as the endpoint's Aliases,
// drivers/docker/driver.go createContainerConfig, v1.11.3). The default
// bridge gives each its own address too, but its DNS is the host's, which
// knows no task. The operator makes the network (the site's
// nomad.docker_network): a bridge network reaches the containers of its
// own client only, so a site of several clients leaves it unset (a node
// per task) or names a network that spans them (an attachable overlay).
// The contract's peer entries (peerEntries) ask it too: they would
// contradict the DNS. Names are what the shape's tasks reach each other
// by; an address of the contract is the client's with a published port.
func ownNetwork(p *translate.Plan, set settings) (network, why string) {
	for _, r := range p.Job.Roles {
		if d := roleDriver(p, set, r.Name); d != "docker" {
			return "", "role " + r.Name + " runs on " + d + ", not docker"
		}
		if cr := p.Compiled().Role(r.Name); cr.SSH || cr.SSHIdle {
			// its config names every sshd at the client's address, which
			// a container of a network of its own reaches only through a
			// published port on a routable address (not a dev agent's
			// 127.0.0.1)
			return "", "role " + r.Name + " runs the ssh emulation, whose peers' sshd are at the clients' addresses"
		}
	}
	if set.DockerNetwork == "" {
		return "", "the site names no Docker network of its own (nomad.docker_network), and Docker's default bridge resolves no task's name (its embedded DNS serves user-defined networks only)"
	}
	return set.DockerNetwork, ""
}

// networkWouldFix: the site's Docker network is all the job lacks for a
// network per task (ownNetwork).
func networkWouldFix(p *translate.Plan, set settings) bool {
	if set.DockerNetwork != "" {
		return false
	}
	set.DockerNetwork = "jobshift"
	net, _ := ownNetwork(p, set)
	return net != ""
}

// roleDriver is the task driver of the role called name.
func roleDriver(p *translate.Plan, set settings, name string) string {
	if rule := p.Site.Role(name); rule != nil && rule.Driver != "" {
		return rule.Driver
	}
	return set.Driver
}

// groupsOn is how many groups run on driver.
func (d *decider) groupsOn(driver string) int {
	n := 0
	for _, g := range d.s.Groups {
		if g.Driver == driver {
			n++
		}
	}
	return n
}

type decider struct {
	p      *translate.Plan
	set    settings
	c      Contract
	jobID  string
	byRole map[string][]Service
	s      *Shape
	diags  hcl.Diagnostics
}

// rendezvous: none for one task; the snapshot when a watcher will write
// it and the job fits one Variable per group; else the barrier.
func (d *decider) rendezvous() {
	j, s := d.p.Job, d.s
	switch {
	case j.TaskCount() <= 1:
		s.Rendezvous = RendezvousNone
		s.Why = append(s.Why, "rendezvous none: the job has one task")
	case !s.Watched:
		s.Rendezvous = RendezvousBarrier
		s.Why = append(s.Why, "rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)")
	default:
		if ok, why := snapshotFits(d.jobID, snapGroupsOf(j, d.byRole)); !ok {
			s.Rendezvous = RendezvousBarrier
			s.Why = append(s.Why, "rendezvous barrier: "+why)
			d.diags = append(d.diags, jobs.Warnf(j.NamePos, "Barrier rendezvous",
				"The job's tasks meet through a barrier task per allocation, not one topology snapshot: %s.", why))
			return
		}
		s.Rendezvous = RendezvousSnap
		s.Why = append(s.Why, "rendezvous snapshot: the watcher writes every task's address once all are placed")
	}
}

func (d *decider) group(role *jobs.Role) GroupShape {
	driver := roleDriver(d.p, d.set, role.Name)
	g := GroupShape{Role: role.Name, Group: groupName(role.Name), Driver: driver, Traits: TraitsOf(driver)}
	for _, sv := range d.byRole[role.Name] {
		if sv.To > 0 && !g.Traits.MapsPorts {
			g.HostPorts = true
		}
	}
	cr := d.p.Compiled().Role(role.Name)
	uai := len(d.c.Processes(d.p)) > 1
	d.env(&g, role)
	g.Finisher = d.inTaskFinisher(&g, uai)
	d.judges(&g, uai)
	if d.s.Rendezvous == RendezvousBarrier {
		g.Tasks = append(g.Tasks, TaskShape{Name: BarrierTask, Hook: "prestart"})
	}
	if d.set.Helper != "" && cr.SSH {
		g.Tasks = append(g.Tasks, TaskShape{Name: SSHKeyTask, Hook: "prestart"})
		g.Why = append(g.Why, "sshkey task: the ssh emulation's key is made in the job, for a run without jobshift")
	}
	d.stepOrder(&g, role)
	if len(role.Init) > 0 {
		g.Tasks = append(g.Tasks, TaskShape{Name: InitTask, Hook: "prestart"})
		g.Why = append(g.Why, fmt.Sprintf("init task: the role's %d init container(s) run before the main task, in order, in one prestart task (Nomad starts a group's prestart tasks at once)", len(role.Init)))
	}
	g.Tasks = append(g.Tasks, TaskShape{Name: MainTask, Wrappers: d.mainWrappers(&g, role)})
	d.mounts(&g, role)
	d.emptyDirTasks(&g, role)
	d.hostPathsAllowed(&g)
	if uai {
		ps := TaskShape{Name: PSTask}
		if g.Traits.GroupSignal {
			ps.Wrappers = append(d.envWrappers(&g), WrapStop)
		} else {
			ps.Wrappers = d.envWrappers(&g)
		}
		g.Tasks = append(g.Tasks, ps)
		if d.set.Helper != "" {
			g.Tasks = append(g.Tasks, TaskShape{Name: JudgeTask, Hook: "poststart"})
		}
	}
	if d.set.Helper != "" && g.Finisher == "" {
		g.Tasks = append(g.Tasks, TaskShape{Name: FinisherTask, Hook: "poststop"})
	}
	return g
}

// stepOrder gives a role that depends on others (jobs.Role.DependsOn) the
// prestart task that waits for them (depwait.go): it runs the helper, so
// without one the job is refused, located.
func (d *decider) stepOrder(g *GroupShape, role *jobs.Role) {
	if len(role.DependsOn) == 0 {
		return
	}
	dep := role.DependsOn[0]
	if d.set.Helper == "" {
		d.diags = append(d.diags, jobs.Errorf(dep.Pos, "Step order needs the helper on Nomad",
			"Role %s starts only once role %s is %s; Nomad starts every group at once, and jobshift keeps the order with a prestart task that runs its helper (nomad.helper in the site config, the jobshift binary on every client). Set nomad.helper, or run with -to local or -to slurm.", role.Name, dep.Role, dep.Status))
		return
	}
	g.Tasks = append(g.Tasks, TaskShape{Name: WaitTask, Hook: "prestart"})
	g.Why = append(g.Why, fmt.Sprintf("wait task: the role starts once role %s is %s (and its other dependencies hold): %s %s follows the job's allocations", dep.Role, dep.Status, d.set.Helper, WaitCommand))
}

// env decides how the group's environment arrives.
func (d *decider) env(g *GroupShape, role *jobs.Role) {
	if d.s.Rendezvous != RendezvousSnap {
		g.Env = EnvRegistrations
		g.Why = append(g.Why, "env: template over the group services (no snapshot)")
		return
	}
	why := d.inTaskEnvFits(g, role)
	if why == "" {
		g.Env = EnvInTask
		g.Why = append(g.Why, "env: "+d.set.envHelper()+" nomad-env evaluates the contract in the task")
		return
	}
	g.Why = append(g.Why, "no nomad-env: "+why)
	if why = d.sourcedFits(g, role); why == "" {
		g.Env = EnvSourced
		g.Why = append(g.Why, "env: a file sh sources once the snapshot is there (env-wait)")
		return
	}
	g.Env = EnvSnapTemplate
	g.Why = append(g.Why, "env: template over the snapshot: "+why)
}

// inTaskEnvFits: why the group cannot evaluate its environment itself,
// "" when it can (taskenv.go).
func (d *decider) inTaskEnvFits(g *GroupShape, role *jobs.Role) string {
	h := d.set.envHelper()
	switch {
	case h == "":
		return "the site names no helper (nomad.helper, nomad.env_helper)"
	case !g.Traits.HostBinaries && !(g.Traits.ChrootBinaries && inDefaultChroot(h)):
		return "driver " + g.Driver + " may not hold " + h
	case contract.UsesNode(d.p.Job):
		// Nomad gives node attributes to templates (env "node.unique.name"),
		// not to the task's environment, where nomad-env would read them
		return "the contract names the task's node (spec.nodeName, status.hostIP), an attribute only a template reads"
	}
	for k, proc := range d.c.Processes(d.p) {
		before, cuda := ownEnvSplit(role, g.Traits.Container, gpusOf(role, k))
		// the task namespace's files travel with it (ViewInTask)
		view := &intask.View{Files: viewFiles(role)}
		if taskEnvPayload(d.p, d.jobID, role, proc, before, cuda, view) == "" {
			return "the contract's input is too large for the task's env block"
		}
	}
	return ""
}

// sourcedFits: why the group cannot source its environment from a file,
// "" when it can (shellenv.go).
func (d *decider) sourcedFits(g *GroupShape, role *jobs.Role) string {
	switch {
	case g.Traits.Container:
		return "an image need not have /bin/sh"
	case d.p.Options[OptEnvTemplate] == "1":
		return "the plan asks for the template (" + OptEnvTemplate + ")"
	}
	before, _ := ownEnvSplit(role, false, 0)
	for _, e := range before {
		if !contract.IsShellName(e.Name) {
			return e.Name + " is not a shell name"
		}
	}
	for _, proc := range d.c.Processes(d.p) {
		_, err := d.c.EnvShell(d.p, role, d.jobID, proc, TopologyPath(d.jobID, g.Group))
		if errors.Is(err, contract.ErrShellNames) {
			return "a contract variable is not a shell name"
		}
	}
	return ""
}

// gpusOf is the GPUs of process k of role's tasks: a parameter server
// (k > 0) holds none (task.go, mainTask).
func gpusOf(role *jobs.Role, k int) int {
	if k > 0 {
		return 0
	}
	return role.Resources.GPU
}

// inTaskFinisher is the helper that judges from inside the group's main
// task (FinishEnded), or "" when the group keeps the poststop finisher.
// A lifecycle task of any kind slows the client's start of every
// allocation of its group (tasklifecycle's gates, made and closed one
// allocation at a time: BENCHMARKS.md, session 21). But a task that dies
// before or without its wrapper's end (a failed start, a lost client)
// judges nothing, which the poststop task would have: so only where a
// watcher sees those. Each row is one condition and why it must hold.
func (d *decider) inTaskFinisher(g *GroupShape, uai bool) string {
	h := d.set.Helper
	cr := d.p.Compiled().Role(g.Role)
	rows := []struct {
		ok  bool
		why string
	}{
		{h != "", "the site names no helper"},
		{d.s.Watched, "no watcher sees a task that dies before its wrapper ends"},
		{g.Traits.HostBinaries, "driver " + g.Driver + " may not hold the helper"},
		{!uai, "a UAI node's parameter server outlives its training task: the judge and the poststop finisher judge"},
		{!cr.SSH && !cr.SSHIdle, "the ssh emulation wraps the command"},
		{!strings.Contains(h, "${"), "Nomad would rewrite the helper's path"},
		{endsFit(d.jobID), "the end markers' Variable paths would be too long"},
		{!d.netsAsked(), "the task's own network (task networks) has no route to the Nomad API"},
	}
	for _, r := range rows {
		if !r.ok {
			if h != "" {
				g.Why = append(g.Why, "poststop finisher, not in the task: "+r.why)
			}
			return ""
		}
	}
	g.Why = append(g.Why, "in-task finisher: the wrapper execs "+h+" nomad-finish -exit when the command ended for good")
	return h
}

// judges lists who applies the rules to the group's tasks.
func (d *decider) judges(g *GroupShape, uai bool) {
	if d.s.Watched {
		g.Judges = append(g.Judges, JudgeWatcher)
	}
	switch {
	case g.Finisher != "":
		g.Judges = append(g.Judges, JudgeInTask)
	case d.set.Helper != "" && uai:
		g.Judges = append(g.Judges, JudgeUAI, JudgePoststop)
	case d.set.Helper != "":
		g.Judges = append(g.Judges, JudgePoststop)
	}
	if len(g.Judges) == 0 {
		g.Judges = append(g.Judges, JudgeNobody)
	}
}

// envWrappers are the wrappers the environment adds, outermost first.
func (d *decider) envWrappers(g *GroupShape) []Wrapper {
	switch g.Env {
	case EnvInTask:
		return []Wrapper{WrapEnvHelper}
	case EnvSourced:
		return []Wrapper{WrapEnvWait}
	}
	return nil
}

// mainWrappers are the main task's wrappers, outermost first:
// environment, task namespace (so the ssh emulation's sshd, and what it
// starts, see the task's names and files), ssh emulation, restart loop or stop wrapper (with the
// finisher's tail), then the command.
func (d *decider) mainWrappers(g *GroupShape, role *jobs.Role) []Wrapper {
	cr := d.p.Compiled().Role(role.Name)
	w := d.envWrappers(g)
	if d.taskView(g, role) {
		w = append(w, WrapTaskNS)
	}
	if cr.SSH {
		w = append(w, WrapSSH)
	}
	restart := false
	if completion.RestartsPossible(d.p.Job, role.Name) {
		if role.Command.Kind == jobs.CommandArgv && len(role.Command.Command) == 0 {
			d.diags = append(d.diags, jobs.Warnf(role.Command.Pos, "No in-place restarts",
				"Role %q runs its image's ENTRYPOINT, which jobshift cannot wrap in its restart loop on Nomad; its tasks are not restarted in place. Add `command:` to restart them.", role.Name))
		} else {
			restart = true
		}
	}
	drain := d.logDrain(g, role, cr.SSHIdle)
	switch {
	case restart:
		w = append(w, WrapRestart)
	case (g.Traits.GroupSignal || drain) && !cr.SSHIdle:
		w = append(w, WrapStop)
	default:
		return w // no shell to end in the finisher's tail
	}
	if drain {
		w = append(w, WrapLogDrain)
	}
	if g.Finisher != "" {
		w = append(w, WrapFinisher)
	}
	return w
}

// logDrain: whether the main task's last wrapper waits a second after
// the command before it ends (WrapLogDrain), so that the driver's logger
// has the command's output (Traits.LogsCutAtExit), with a Why line. Not
// for an image's ENTRYPOINT (no command to wrap) nor an idle MPI worker
// (its only output is the ssh emulation's).
func (d *decider) logDrain(g *GroupShape, role *jobs.Role, idle bool) bool {
	if !g.Traits.LogsCutAtExit || idle || role.Command.Kind == jobs.CommandArgv && len(role.Command.Command) == 0 {
		return false
	}
	g.Why = append(g.Why, "log drain: driver "+g.Driver+"'s logger stops when the container exits (hashicorp/nomad#6931): the command runs under a shell that waits a second before the container ends, so its output is in the task's log")
	return true
}

// taskView: whether the main task runs under the task namespace wrapper
// (view.go), with a Why line either way. A container has its image's
// host name and gets no wrapper (an image need not have sh or unshare).
func (d *decider) taskView(g *GroupShape, role *jobs.Role) bool {
	if g.Traits.Container {
		if len(role.Files) > 0 {
			g.Why = append(g.Why, "no task namespace: driver "+g.Driver+" runs an image (its own host name); platform files are volumes from the task directory")
		}
		return false
	}
	g.Why = append(g.Why, "task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper")
	if g.Env == EnvInTask {
		// A task's first template costs the client a consul-template
		// runner before the task starts: with the view's two templates
		// the 16-task start took 1.50 times the bare job's, 1.05 with
		// the view off; here the task has no template at all
		// (BENCHMARKS.md).
		g.View = ViewInTask
		g.Why = append(g.Why, "task namespace files by nomad-env: it runs first anyway and writes them before it execs the wrapper, so the task has no template")
		return true
	}
	g.View = ViewTemplates
	g.Why = append(g.Why, "task namespace files by templates: nothing runs in the task before the wrapper to write them")
	return true
}

// has reports whether w is among ws.
func has(ws []Wrapper, w Wrapper) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// String is the shape as the artifact header, run -plan and the package
// doc show it.
func (s *Shape) String() string {
	var b strings.Builder
	watch := "unwatched (nothing outside the job: nomad job run, run -detach)"
	if s.Watched {
		watch = "watched (jobshift run or the controller follows it)"
	}
	fmt.Fprintf(&b, "shape: %s; rendezvous %s\n", watch, s.Rendezvous)
	switch s.Clients {
	case ClientsOne:
		b.WriteString("clients: one (the cluster has one client that can run the job: jobshift run counted it, or convert -one-client)\n")
	case ClientsSeveral:
		b.WriteString("clients: several (jobshift run counts the clients that can run the job and submits the shape for one where it finds one: convert -one-client)\n")
	}
	for _, g := range s.Groups {
		fmt.Fprintf(&b, "group %s (%s): env %s; judged by %s", g.Group, g.Driver, g.Env, joinJudges(g.Judges))
		if g.View != "" {
			fmt.Fprintf(&b, "; task namespace files by %s", g.View)
		}
		if g.Network != "" {
			fmt.Fprintf(&b, "; docker network %s", g.Network)
		}
		b.WriteString("\n")
		for _, t := range g.Tasks {
			fmt.Fprintf(&b, "  task %s", t.Name)
			if t.Hook != "" {
				fmt.Fprintf(&b, " (%s)", t.Hook)
			}
			for _, w := range t.Wrappers {
				fmt.Fprintf(&b, " > %s", w)
			}
			if t.Hook == "" {
				b.WriteString(" > command")
			}
			b.WriteString("\n")
		}
	}
	for _, why := range s.Why {
		fmt.Fprintf(&b, "why: %s\n", why)
	}
	for _, g := range s.Groups {
		for _, why := range g.Why {
			fmt.Fprintf(&b, "why (%s): %s\n", g.Group, why)
		}
	}
	return b.String()
}

func joinJudges(js []Judge) string {
	parts := make([]string, len(js))
	for i, j := range js {
		parts[i] = string(j)
	}
	return strings.Join(parts, ", ")
}
