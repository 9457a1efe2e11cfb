package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// SnapshotTopology reads the items of a topology snapshot (the Nomad
// Variable drivers/nomad's coordinator writes once per attempt, that
// NomadSnapshotTemplate reads in consul-template) into the Topology the
// oracle evaluates: role k's addresses from SnapshotAddrKey(k), each port
// of service n (NomadServicesFor order, the numbering the template uses)
// from SnapshotPortKey(n), task i being the i-th space-separated field.
// It is how a task that evaluates its own environment (the Nomad helper's
// nomad-env) sees exactly the peers the template would have rendered.
// A missing item, a short list or a port that is not a number is an error
// naming it: the task must fail rather than start with a wrong peer.
func SnapshotTopology(job *jobs.Job, opts Options, items map[string]string) (Topology, error) {
	if job == nil {
		return Topology{}, errNoJob
	}
	if err := CheckSnapshotItems(job, opts, items); err != nil {
		return Topology{}, err
	}
	topo := Topology{Roles: make([]RoleTopology, len(job.Roles))}
	for k, r := range job.Roles {
		addrs, err := snapshotFields(items, SnapshotAddrKey(k), r.Instances)
		if err != nil {
			return Topology{}, err
		}
		rt := RoleTopology{Name: r.Name, Tasks: make([]TaskTopology, r.Instances)}
		for i := range rt.Tasks {
			rt.Tasks[i] = TaskTopology{Addr: addrs[i], Ports: map[string][]int{}}
			for _, p := range PortLabels(job, k, opts) {
				rt.Tasks[i].Ports[p.Label] = make([]int, p.Count)
			}
		}
		topo.Roles[k] = rt
	}
	for n, s := range NomadServicesFor(job, "", opts) {
		if s.Label == "" {
			continue
		}
		k := roleIndex(job, s.Role)
		key := SnapshotPortKey(n)
		fields, err := snapshotFields(items, key, job.Roles[k].Instances)
		if err != nil {
			return Topology{}, err
		}
		for i, f := range fields[:job.Roles[k].Instances] {
			port, err := strconv.Atoi(f)
			if err != nil || port < 1 || port > 65535 {
				return Topology{}, fmt.Errorf("topology snapshot item %s: task %d's port %q is not a port number", key, i, f)
			}
			topo.Roles[k].Tasks[i].Ports[s.Label][s.Ordinal] = port
		}
	}
	return topo, nil
}

// snapshotFields is item key split as the template splits it, holding at
// least n fields.
func snapshotFields(items map[string]string, key string, n int) ([]string, error) {
	if n == 0 {
		return nil, nil
	}
	v, ok := items[key]
	if !ok {
		return nil, fmt.Errorf("topology snapshot has no item %s", key)
	}
	fields := strings.Split(v, " ")
	if len(fields) < n {
		return nil, fmt.Errorf("topology snapshot item %s names %d tasks, the role has %d", key, len(fields), n)
	}
	return fields, nil
}

// The grammar of a snapshot's address and port items, checked where the
// values are used, by every evaluator: the Nomad templates (regexMatch,
// snapshotHead), the in-task helper (SnapshotTopology) and the shell stage
// (_js_addr, _js_ports) accept the same values. Anyone able to write the
// Variable could otherwise put a newline and more configuration into a
// task's environment, its ssh_config or a shell. A port is 1..65535 in
// canonical decimal (what strconv.Itoa writes); an address is letters,
// digits, '.', ':', '-' and '_' (validAddr); fields are separated by one
// space. An item may be empty (a role without tasks).
const (
	snapshotAddr = `[A-Za-z0-9.:_-]+`
	snapshotPort = `(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})`
	// SnapshotAddrsPattern is what an address item must match.
	SnapshotAddrsPattern = `^(?:` + snapshotAddr + `(?: ` + snapshotAddr + `)*)?$`
	// SnapshotPortsPattern is what a port item must match.
	SnapshotPortsPattern = `^(?:` + snapshotPort + `(?: ` + snapshotPort + `)*)?$`
)

var (
	snapshotAddrsRE = regexp.MustCompile(SnapshotAddrsPattern)
	snapshotPortsRE = regexp.MustCompile(SnapshotPortsPattern)
)

// CheckSnapshotItems checks the address and port items of a snapshot of
// job against their grammar (SnapshotAddrsPattern, SnapshotPortsPattern).
func CheckSnapshotItems(job *jobs.Job, opts Options, items map[string]string) error {
	for k := range job.Roles {
		if key := SnapshotAddrKey(k); !snapshotAddrsRE.MatchString(items[key]) {
			return fmt.Errorf("topology snapshot item %s: %q is not a list of addresses", key, items[key])
		}
	}
	for n, s := range NomadServicesFor(job, "", opts) {
		if key := SnapshotPortKey(n); s.Label != "" && !snapshotPortsRE.MatchString(items[key]) {
			return fmt.Errorf("topology snapshot item %s: %q is not a list of port numbers", key, items[key])
		}
	}
	return nil
}
