package contract

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jobshift/jobshift/jobs"
)

// Topology is where every task of a job runs: one RoleTopology per job role,
// in job order.
type Topology struct {
	Roles []RoleTopology
	// MPIDir is the MPI directory when the target names it at run time
	// (Options.MPIDirRunTime): an absolute path; ignored otherwise.
	MPIDir string
}

// RoleTopology is one role's tasks, in index order.
type RoleTopology struct {
	Name  string
	Tasks []TaskTopology
}

// TaskTopology is one task's address and its host ports: port label → the
// label's ports (as many as PortLabels says).
type TaskTopology struct {
	Addr  string
	Ports map[string][]int
	// Node and NodeAddr are the name and address of the node the task
	// runs on, for a job whose contract names them (UsesNode); ignored
	// otherwise. Both are letters, digits, '.', ':', '-' and '_'.
	Node, NodeAddr string
}

// LeinaoLabel is the port label under which a task's three LeinaoPAI host
// ports (mapped to the container's 10001, 10002, 10003) are in a topology.
const LeinaoLabel = "leinao"

// LeinaoPorts are the container ports LeinaoPAI mapped: the one place
// they are written down (translate.PortPlan.Container carries them to the
// drivers).
var LeinaoPorts = []int{10001, 10002, 10003}

// UAILabel is the port label under which a UAI Train node's two ports
// (port-ps, port-worker) are in a topology when the role does not declare
// two ports itself: UAI users never declared ports (the platform chose
// them), so the uai contract asks the drivers for them.
const UAILabel = "uai"

// PortLabels lists the port labels a topology must give every task of role
// k, in order, with their counts: the role's ports as declared, plus
// LeinaoLabel ×3 when the leinao contract applies and the role does not
// declare it, plus UAILabel ×2 when the uai contract needs ports the role
// does not declare (see uaiSlots). The Shell input (JS_R<k>_PORT_<l>_<i>) and the Nomad services
// number labels by their position in this list.
func PortLabels(job *jobs.Job, k int, opts Options) []jobs.Port {
	r := job.Roles[k]
	out := slices.Clone(r.Ports)
	cs, err := contracts(job, opts)
	if err == nil && has(cs, jobs.ContractLeinao) && findPort(r, LeinaoLabel) == nil {
		out = append(out, jobs.Port{Label: LeinaoLabel, Count: len(LeinaoPorts), Implicit: true})
	}
	if err == nil && has(cs, jobs.ContractUAI) && uaiImplicit(job, k) {
		out = append(out, jobs.Port{Label: UAILabel, Count: 2, Implicit: true})
	}
	return out
}

func findPort(r *jobs.Role, label string) *jobs.Port {
	for i := range r.Ports {
		if r.Ports[i].Label == label {
			return &r.Ports[i]
		}
	}
	return nil
}

// SampleTopology is a deterministic topology for explain, for the job's
// default contracts: see SampleTopologyFor.
func SampleTopology(job *jobs.Job) Topology { return SampleTopologyFor(job, Options{}) }

// SampleTopologyFor is a deterministic topology: the n-th task over all
// roles (from 0) gets address 10.0.0.<n+1> (10.0.<n/250>.<n%250+1> past 250
// tasks), a node of its own (node-<n+1> at that address) and ports from
// 20000 upwards in PortLabels order; a run-time MPI
// directory (Options.MPIDirRunTime) is MPIDefaultDir.
func SampleTopologyFor(job *jobs.Job, opts Options) Topology {
	var t Topology
	if job == nil {
		return t
	}
	n, p := 0, 20000
	for k, r := range job.Roles {
		rt := RoleTopology{Name: r.Name}
		labels := PortLabels(job, k, opts)
		for range r.Instances {
			tt := TaskTopology{Addr: sampleAddr(n), Ports: map[string][]int{}, Node: fmt.Sprintf("node-%d", n+1), NodeAddr: sampleAddr(n)}
			n++
			for _, l := range labels {
				for range l.Count {
					tt.Ports[l.Label] = append(tt.Ports[l.Label], p)
					p++
				}
			}
			rt.Tasks = append(rt.Tasks, tt)
		}
		t.Roles = append(t.Roles, rt)
	}
	if opts.MPIDirRunTime {
		t.MPIDir = MPIDefaultDir
	}
	return t
}

// UsesMPIDir reports whether some task's contract names the MPI directory
// (the mpi contract, or the ssh emulation of an MPIJob): a target that
// names it at run time (Options.MPIDirRunTime) makes it then.
func UsesMPIDir(job *jobs.Job, opts Options) bool {
	cs, err := contracts(job, opts)
	return err == nil && (has(cs, jobs.ContractMPI) || opts.SSH && (job.Source.Format == jobs.FormatMPIJob || trainerMPIJob(job)))
}

func needsRunTimeMPIDir(job *jobs.Job, opts Options) bool {
	return opts.MPIDirRunTime && UsesMPIDir(job, opts)
}

func validMPIDir(s string) bool {
	return strings.HasPrefix(s, "/") && strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

func sampleAddr(n int) string {
	if n < 250 {
		return fmt.Sprintf("10.0.0.%d", n+1)
	}
	return fmt.Sprintf("10.0.%d.%d", n/250, n%250+1)
}

// validAddr is what every rendering can carry unescaped: IPv4/IPv6
// literals and host names.
func validAddr(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == ':' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func checkTopology(job *jobs.Job, topo Topology, opts Options) error {
	bad := func(format string, args ...any) error {
		return fail(ErrTopology, job.NamePos, "Topology does not match the job", format, args...)
	}
	if len(topo.Roles) != len(job.Roles) {
		return bad("the job has %d roles, the topology %d.", len(job.Roles), len(topo.Roles))
	}
	if needsRunTimeMPIDir(job, opts) && !validMPIDir(topo.MPIDir) {
		return bad("the MPI directory %q is not an absolute path of valid UTF-8 without NUL.", topo.MPIDir)
	}
	node := UsesNode(job)
	for k, r := range job.Roles {
		rt := topo.Roles[k]
		if rt.Name != r.Name {
			return bad("role %d is %q in the job and %q in the topology.", k, r.Name, rt.Name)
		}
		if len(rt.Tasks) != r.Instances {
			return bad("role %q has %d instances, the topology %d tasks.", r.Name, r.Instances, len(rt.Tasks))
		}
		labels := PortLabels(job, k, opts)
		for i, t := range rt.Tasks {
			if !validAddr(t.Addr) {
				return bad("task %s-%d has address %q; an address is letters, digits, '.', ':', '-' and '_'.", r.Name, i, t.Addr)
			}
			if node && (!validAddr(t.Node) || !validAddr(t.NodeAddr)) {
				return bad("task %s-%d runs on node %q at %q; a node's name and address are letters, digits, '.', ':', '-' and '_'.", r.Name, i, t.Node, t.NodeAddr)
			}
			for _, l := range labels {
				ps := t.Ports[l.Label]
				if len(ps) != l.Count {
					return bad("task %s-%d has %d ports of label %q, the job wants %d.", r.Name, i, len(ps), l.Label, l.Count)
				}
				for _, p := range ps {
					if p < 1 || p > 65535 {
						return bad("task %s-%d: port %d of label %q is not a TCP port.", r.Name, i, p, l.Label)
					}
				}
			}
		}
	}
	return nil
}
