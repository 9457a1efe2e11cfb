package nomad

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// The topology snapshot (issue 15 item 2; spec/nomad.md §2 (c)): the
// rendezvous of a job that `jobshift run` (or the controller) watches.
// Instead of a prestart barrier task per allocation whose template scans
// every registration and re-renders on each of them (O(N) renders of
// O(N) text per allocation, one more task launch), the watcher waits, with
// a blocking query on the job's allocations, until every task of the
// attempt is placed, and writes the whole topology (each task's host
// address and host ports, fixed at placement: coordinator.build says why
// placement is the rendezvous) once per attempt into one Nomad Variable
// per group, nomad/jobs/<job>/<group> — the one path every task of the
// group may read with its default workload identity (a task may read
// exactly nomad/jobs/<job>[/<group>[/<task>]]; nomad/jobs/<job> holds the
// job's secrets, which never go into the snapshot). Such a job registers
// no services: nothing reads them. Each main task's env template reads
// its group's Variable with nomadVar, which blocks until the Variable
// exists (contract.NomadSnapshotTemplate): one blocking query and one
// render per task, and since the Variable is usually written before a
// client has even received its allocation, the template rarely waits.
// The Variables are deleted before a retry registers the next attempt,
// before a submit, and with the verdict.
//
// A converted job submitted with plain `nomad job run`, and `run
// -detach`, have no watcher to write the snapshot: they keep the services
// and the barrier (OptRendezvous), which need nothing outside the job.

// maxVariableSize is Nomad's limit on a Variable's items (64 KiB,
// structs.maxVariableSize; a larger write is refused).
const maxVariableSize = 64 * 1024

// validVariablePath is Nomad's rule for Variable paths.
var validVariablePath = regexp.MustCompile(`^[a-zA-Z0-9-_~/]{1,128}$`)

// attemptEnv is the task's attempt as its template reads it (job meta).
const attemptEnv = intask.AttemptEnv

// snapshotFits reports whether a job of these groups can use the
// snapshot: their paths are valid Variable paths and the topology, with
// IPv4 addresses and 5-digit ports, stays under the size limit with room
// to spare; otherwise why not.
func snapshotFits(jobID string, groups []snapGroup) (bool, string) {
	size := 0
	for _, g := range groups {
		if p := TopologyPath(jobID, g.name); !validVariablePath.MatchString(p) {
			return false, fmt.Sprintf("group %q's Variable path %q is not a valid Nomad Variable path ([a-zA-Z0-9-_~/], at most 128 characters)", g.name, p)
		}
		size += 8 + 16*g.count // a<k>: "255.255.255.255 " per task
		for _, s := range g.services {
			if s.label != "" {
				size += 8 + 6*g.count
			}
		}
	}
	if size > maxVariableSize*7/8 {
		return false, fmt.Sprintf("its topology (about %d bytes) would be near or over Nomad's %d-byte Variable limit", size, maxVariableSize)
	}
	return true, ""
}

// snapGroup is what the coordinator needs of one task group.
type snapGroup struct {
	name     string
	count    int
	services []snapService
}

// snapService is one port slot of a group (a contract.NomadServicesFor
// service; a snapshot-mode job registers none of them).
type snapService struct {
	n     int    // the service's number in the job (contract.SnapshotPortKey)
	label string // its port label in the group network; "" = address only
}

// snapPortsMeta is MetaSnapPorts' value for services.
func snapPortsMeta(services []snapService) string {
	parts := make([]string, len(services))
	for i, s := range services {
		parts[i] = strconv.Itoa(s.n) + ":" + s.label
	}
	return strings.Join(parts, " ")
}

// snapGroups reads the groups of a registered jobshift job in role order
// with their port slots in contract.NomadServicesFor order, as render
// wrote them: from MetaSnapPorts, or from the group services of a job
// rendered before the snapshot was taken from placements (same order).
// A group without MetaRole is not one of the job's roles (one an operator
// added to a converted job, say): it is not in the topology, and the
// snapshot does not wait for its placement.
func snapGroups(job *api.Job) []snapGroup {
	var out []snapGroup
	n := 0
	for _, g := range job.TaskGroups {
		if _, role := g.Meta[MetaRole]; !role {
			continue
		}
		sg := snapGroup{name: *g.Name, count: *g.Count}
		if meta, ok := g.Meta[MetaSnapPorts]; ok {
			for _, f := range strings.Fields(meta) {
				num, label, _ := strings.Cut(f, ":")
				k, _ := strconv.Atoi(num)
				sg.services = append(sg.services, snapService{n: k, label: label})
			}
		} else {
			for _, s := range g.Services {
				sg.services = append(sg.services, snapService{n: n, label: s.PortLabel})
				n++
			}
		}
		out = append(out, sg)
	}
	return out
}

// coordinator writes one attempt's snapshot; the watcher reads its state.
type coordinator struct {
	w       *watcher
	groups  []snapGroup
	version uint64
	attempt int
	start   time.Time

	mu      sync.Mutex
	written bool
	missing string // tasks not registered yet, for the timeout message
	failure string // the snapshot cannot be written (too large, refused)

	cancel context.CancelFunc
	done   chan struct{}
}

// startCoordinator starts the snapshot writer of the current attempt when
// the job uses the snapshot.
func (w *watcher) startCoordinator(ctx context.Context, job *api.Job) {
	if ShapeOf(job).Rendezvous != RendezvousSnap {
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	co := &coordinator{w: w, groups: snapGroups(job), version: w.version, attempt: w.m.Attempt(),
		start: time.Unix(0, *job.SubmitTime), cancel: cancel, done: make(chan struct{})}
	w.co = co
	go func() {
		defer close(co.done)
		co.run(cctx)
	}()
}

// stopCoordinator ends the writer and waits for it.
func (w *watcher) stopCoordinator() {
	if w.co != nil {
		w.co.cancel()
		<-w.co.done
	}
}

func (co *coordinator) run(ctx context.Context) {
	var index uint64
	for ctx.Err() == nil {
		allocs, meta, err := co.placements(ctx, index)
		if err != nil {
			sleepCtx(ctx, time.Second)
			continue
		}
		index = meta.LastIndex
		items, missing := co.build(allocs)
		co.mu.Lock()
		co.missing = missing
		co.mu.Unlock()
		if items == nil {
			continue
		}
		if err := co.write(ctx, items); err != nil {
			if ctx.Err() != nil {
				return
			}
			co.mu.Lock()
			co.failure = err.Error()
			co.mu.Unlock()
			return
		}
		co.mu.Lock()
		co.written = true
		co.mu.Unlock()
		return
	}
}

// placements is a blocking query on the job's allocations with their
// allocated ports. The job's own allocations endpoint never carries them
// (AllocatedResources is null there; measured on Nomad 1.11), the
// cluster-wide list does with resources=true, filtered to this job on the
// server.
func (co *coordinator) placements(ctx context.Context, index uint64) ([]*api.AllocationListStub, *api.QueryMeta, error) {
	q := &api.QueryOptions{WaitIndex: index, WaitTime: 30 * time.Second,
		Filter: fmt.Sprintf("JobID == %q", co.w.id), Params: map[string]string{"resources": "true"}}
	return co.w.c.Allocations().List(q.WithContext(ctx))
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// build returns the snapshot's items once every task of the attempt is
// placed, else the tasks not yet placed. Placement is the rendezvous
// (rather than registration, or running): the scheduler fixes an
// allocation's host address and host ports when it places it, before any
// client receives it, and they are what peers reach — Docker's mapped
// port included (PortMapping.Value is the host side of `to`), as the
// registrations of the same ports carried. It is also what the source
// platforms give: OpenPAI's frameworkbarrier waits until every pod of the
// framework has an IP, not until it runs (spec/pai.md "Gang/barrier"),
// and a TFJob's TF_CONFIG is static, names every replica's headless
// service and is set before any process starts (spec/kubeflow.md §2.5).
// So no task waits for the slowest client's prerun, and the server does
// one write per group instead of a registration per port per task.
//
// Only allocations of the attempt count (JobVersion; the previous
// attempt's may linger while they stop), that should run (DesiredStatus;
// a stopped or replaced one should not) and have not been lost or failed;
// of two for one index (a replacement) the newer placement wins.
func (co *coordinator) build(allocs []*api.AllocationListStub) (api.VariableItems, string) {
	placed := co.placed(allocs)
	items := api.VariableItems{contract.SnapshotAttempt: strconv.Itoa(co.attempt)}
	var missing []string
	for k, g := range co.groups {
		addrs := make([]string, g.count)
		ports := make([][]string, len(g.services))
		for j := range ports {
			ports[j] = make([]string, g.count)
		}
		for i := range g.count {
			a := placed[g.name][i]
			addr, pp, ok := slot(a, g.services)
			if !ok {
				missing = append(missing, g.name+"-"+strconv.Itoa(i))
				continue
			}
			addrs[i] = addr
			for j := range pp {
				ports[j][i] = pp[j]
			}
		}
		items[contract.SnapshotAddrKey(k)] = strings.Join(addrs, " ")
		for j, s := range g.services {
			if s.label != "" {
				items[contract.SnapshotPortKey(s.n)] = strings.Join(ports[j], " ")
			}
		}
	}
	if len(missing) > 0 {
		return nil, summarize(missing)
	}
	return items, ""
}

// placed indexes the attempt's live placements by group and task index.
func (co *coordinator) placed(allocs []*api.AllocationListStub) map[string]map[int]*api.AllocationListStub {
	out := map[string]map[int]*api.AllocationListStub{}
	for _, a := range allocs {
		i, ok := allocIndex(a.Name)
		if !ok || a.JobVersion != co.version || a.DesiredStatus != "run" || a.ClientStatus == "lost" {
			continue
		}
		if out[a.TaskGroup] == nil {
			out[a.TaskGroup] = map[int]*api.AllocationListStub{}
		}
		if prev := out[a.TaskGroup][i]; prev == nil || a.CreateIndex > prev.CreateIndex {
			out[a.TaskGroup][i] = a
		}
	}
	return out
}

// slot reads one placement: the task's address (its first port's host
// IP, or the group network's IP for a role without ports) and the host
// port of each service; ok is false when a is nil or lacks any of them.
func slot(a *api.AllocationListStub, services []snapService) (addr string, ports []string, ok bool) {
	if a == nil || a.AllocatedResources == nil {
		return "", nil, false
	}
	shared := a.AllocatedResources.Shared
	ports = make([]string, len(services))
	for j, s := range services {
		if s.label == "" {
			if addr == "" && len(shared.Networks) > 0 {
				addr = shared.Networks[0].IP
			}
			continue
		}
		pm, found := portByLabel(shared.Ports, s.label)
		if !found {
			return "", nil, false
		}
		ports[j] = strconv.Itoa(pm.Value)
		if addr == "" {
			addr = pm.HostIP
		}
	}
	return addr, ports, addr != ""
}

func portByLabel(ports []api.PortMapping, label string) (api.PortMapping, bool) {
	for _, p := range ports {
		if p.Label == label {
			return p, true
		}
	}
	return api.PortMapping{}, false
}

// summarize names at most 8 tasks.
func summarize(tasks []string) string {
	if len(tasks) > 8 {
		tasks = append(tasks[:8:8], fmt.Sprintf("and %d more", len(tasks)-8))
	}
	return strings.Join(tasks, " ")
}

// write stores the snapshot in every group's Variable, refusing one over
// Nomad's size limit with a message saying so.
func (co *coordinator) write(ctx context.Context, items api.VariableItems) error {
	size := 0
	for k, v := range items {
		size += len(k) + len(v) + 6 // as JSON: "k":"v",
	}
	if size > maxVariableSize {
		return fmt.Errorf("the topology snapshot is %d bytes, over Nomad's %d-byte Variable limit (addresses longer than IPv4?); run the job with -detach (the barrier rendezvous) or with fewer tasks", size, maxVariableSize)
	}
	for _, g := range co.groups {
		v := &api.Variable{Path: TopologyPath(co.w.id, g.name), Items: items}
		var err error
		for try := range 5 {
			if err = co.writeOne(ctx, v); err == nil || ctx.Err() != nil {
				break
			}
			sleepCtx(ctx, time.Duration(try+1)*200*time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("writing the topology snapshot %s: %w", v.Path, err)
		}
	}
	return nil
}

// writeOne stores one group's snapshot unless the Variable already holds
// exactly these items (another watcher of the job wrote them: run and the
// controller both coordinate). A snapshot this watcher did not build from
// the allocations, whoever wrote it, is never kept: it is replaced with
// check-and-set on the index it was read at (or on its absence), so a
// write between the read and ours is read again, not lost.
func (co *coordinator) writeOne(ctx context.Context, v *api.Variable) error {
	old, _, err := co.w.c.Variables().Peek(v.Path, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return err
	}
	var index uint64
	if old != nil {
		if maps.Equal(old.Items, v.Items) {
			return nil
		}
		index = old.ModifyIndex
	}
	nv := *v
	nv.ModifyIndex = index
	_, _, err = co.w.c.Variables().CheckedUpdate(&nv, (&api.WriteOptions{}).WithContext(ctx)) // cas=index; 0: must not exist
	return err
}

// deleteTopology removes the job's snapshot Variables (before a retry or
// a submit registers an attempt, and with the verdict): a task never reads
// another attempt's peers. Deleting what is not there is no error.
func deleteTopology(ctx context.Context, c *api.Client, job *api.Job) error {
	for _, g := range job.TaskGroups {
		path := TopologyPath(*job.ID, *g.Name)
		if _, err := c.Variables().Delete(path, (&api.WriteOptions{}).WithContext(ctx)); err != nil && !strings.Contains(err.Error(), "404") {
			return fmt.Errorf("deleting the topology snapshot %s: %w", path, unavailable(err))
		}
	}
	return nil
}

// rendezvous turns, once the attempt's rendezvous time is over without a
// snapshot (or the snapshot cannot be written), every task still waiting
// for it into a failed one, as the barrier's own timeout did: "rendezvous
// failed" with the tasks that never registered. Sticky: the stop that
// follows does not make them Stopped.
func (w *watcher) rendezvous(obs []observed, now time.Time) []observed {
	co := w.co
	if co == nil {
		return obs
	}
	co.mu.Lock()
	written, missing, failure := co.written, co.missing, co.failure
	co.mu.Unlock()
	if written || (failure == "" && now.Sub(co.start) <= w.rvTimeout) {
		return obs
	}
	msg := failure
	if msg == "" {
		msg = fmt.Sprintf("jobshift: rendezvous timeout: after %s not every task of job %s was placed; not yet placed: %s. Check 'nomad job status %s' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is %s.",
			w.rvTimeout, w.id, missing, w.id, timeoutSource(w.pol.Completion))
	}
	if w.rvFailed == nil {
		w.rvFailed = map[jobs.TaskRef]observed{}
	}
	for i, o := range obs {
		if f, ok := w.rvFailed[o.TaskRef]; ok {
			obs[i] = f
			continue
		}
		if o.State == completion.Pending {
			o.State, o.ExitCode, o.Seq, o.Message = completion.Failed, 1, now.UnixNano(), "rendezvous failed: "+msg
			w.rvFailed[o.TaskRef] = o
			obs[i] = o
		}
	}
	return obs
}

// rvWait bounds a blocking query so the rendezvous timeout, or a snapshot
// that cannot be written, is taken on time.
func (w *watcher) rvWait(now time.Time, wait time.Duration) time.Duration {
	co := w.co
	if co == nil || w.rvFailed != nil {
		return wait
	}
	co.mu.Lock()
	written, failure := co.written, co.failure
	co.mu.Unlock()
	switch {
	case written:
		return wait
	case failure != "":
		return 10 * time.Millisecond
	}
	left := co.start.Add(w.rvTimeout).Sub(now) + 10*time.Millisecond
	return max(min(wait, left), 10*time.Millisecond)
}
