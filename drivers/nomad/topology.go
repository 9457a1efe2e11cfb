package nomad

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// The topology snapshot (issue 15 item 2; spec/nomad.md §2 (c)): the
// rendezvous of a job that `jobshift run` (or the controller) watches.
// Instead of a prestart barrier task per allocation whose template scans
// every registration and re-renders on each of them (O(N) renders of
// O(N) text per allocation, one more task launch), the watcher waits, with
// blocking queries on the job's service registrations, until every task
// of the attempt is registered, and writes the whole topology (each
// task's address and ports as its peers see them: the registrations, so
// Docker's mapped ports) once per attempt into one Nomad Variable per
// group, nomad/jobs/<job>/<group> — the one path every task of the group
// may read with its default workload identity (a task may read exactly
// nomad/jobs/<job>[/<group>[/<task>]]; nomad/jobs/<job> holds the job's
// secrets, which never go into the snapshot). Each main task's env
// template reads its group's Variable with nomadVar, which blocks until
// the Variable exists (contract.NomadSnapshotTemplate): one blocking query
// and one render per task. The Variables are deleted before a retry
// registers the next attempt, before a submit, and with the verdict.
//
// A converted job submitted with plain `nomad job run`, and `run
// -detach`, have no watcher to write the snapshot: they keep the barrier
// (OptRendezvous), which needs nothing outside the job.

// Rendezvous modes (the plan option OptRendezvous; job meta MetaRendezvous).
const (
	OptRendezvous     = "rendezvous"
	RendezvousBarrier = "barrier"
	RendezvousSnap    = "snapshot"
	MetaRendezvous    = "jobshift_rendezvous"
)

// maxVariableSize is Nomad's limit on a Variable's items (64 KiB,
// structs.maxVariableSize; a larger write is refused).
const maxVariableSize = 64 * 1024

// validVariablePath is Nomad's rule for Variable paths.
var validVariablePath = regexp.MustCompile(`^[a-zA-Z0-9-_~/]{1,128}$`)

// TopologyPath is the snapshot Variable of group in job jobID.
func TopologyPath(jobID, group string) string { return VariablePath(jobID) + "/" + group }

// attemptEnv is the task's attempt as its template reads it (job meta).
const attemptEnv = "NOMAD_META_" + MetaAttempt

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
			if s.ported {
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

type snapService struct {
	name   string
	n      int  // the service's number in the job (contract.SnapshotPortKey)
	ported bool // has a port
}

// snapGroups reads the groups of a registered jobshift job: groups in
// role order and services in contract.NomadServicesFor order, as render
// wrote them.
func snapGroups(job *api.Job) []snapGroup {
	var out []snapGroup
	n := 0
	for _, g := range job.TaskGroups {
		sg := snapGroup{name: *g.Name, count: *g.Count}
		for _, s := range g.Services {
			sg.services = append(sg.services, snapService{name: s.Name, n: n, ported: s.PortLabel != ""})
			n++
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
	if job.Meta[MetaRendezvous] != RendezvousSnap {
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
	if co.already(ctx) {
		co.mu.Lock()
		co.written = true
		co.mu.Unlock()
		return
	}
	var index uint64
	for ctx.Err() == nil {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: 30 * time.Second}).WithContext(ctx)
		regs, meta, err := co.w.c.Jobs().Services(co.w.id, q)
		if err != nil {
			sleepCtx(ctx, time.Second)
			continue
		}
		index = meta.LastIndex
		items, missing := co.build(ctx, regs)
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

// already: this attempt's snapshot is there (another watcher wrote it: run
// and the controller both coordinate).
func (co *coordinator) already(ctx context.Context) bool {
	if len(co.groups) == 0 {
		return false
	}
	v, _, err := co.w.c.Variables().Peek(TopologyPath(co.w.id, co.groups[0].name), (&api.QueryOptions{}).WithContext(ctx))
	return err == nil && v != nil && v.Items[contract.SnapshotAttempt] == strconv.Itoa(co.attempt)
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// build returns the snapshot's items once every service of every task of
// the attempt has its registration, else the tasks still missing.
// Registrations are matched to the attempt's allocations (a registration
// of the previous attempt may linger while its allocation stops).
func (co *coordinator) build(ctx context.Context, regs []*api.ServiceRegistration) (api.VariableItems, string) {
	byName := map[string][]*api.ServiceRegistration{}
	for _, r := range regs {
		byName[r.ServiceName] = append(byName[r.ServiceName], r)
	}
	if co.firstMissing(byName, nil) != "" {
		return nil, co.firstMissing(byName, nil)
	}
	allocs, _, err := co.w.c.Jobs().Allocations(co.w.id, false, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, "(allocations unreadable: " + err.Error() + ")"
	}
	index := map[string]int{} // alloc ID → index, allocations of this attempt only
	for _, a := range allocs {
		if i, ok := allocIndex(a.Name); ok && a.JobVersion == co.version && a.DesiredStatus == "run" {
			index[a.ID] = i
		}
	}
	if m := co.firstMissing(byName, index); m != "" {
		return nil, m
	}
	items := api.VariableItems{contract.SnapshotAttempt: strconv.Itoa(co.attempt)}
	for k, g := range co.groups {
		for j, s := range g.services {
			addrs, ports := co.slots(byName[s.name], index, g.count)
			if j == 0 {
				items[contract.SnapshotAddrKey(k)] = strings.Join(addrs, " ")
			}
			if s.ported {
				items[contract.SnapshotPortKey(s.n)] = strings.Join(ports, " ")
			}
		}
	}
	return items, ""
}

// slots orders a service's registrations by task index.
func (co *coordinator) slots(regs []*api.ServiceRegistration, index map[string]int, count int) (addrs, ports []string) {
	addrs, ports = make([]string, count), make([]string, count)
	for _, r := range regs {
		if i, ok := index[r.AllocID]; ok && i < count {
			addrs[i], ports[i] = r.Address, strconv.Itoa(r.Port)
		}
	}
	return addrs, ports
}

// firstMissing lists (at most 8) tasks lacking a registration of some
// service; with index nil, any allocation's registration counts.
func (co *coordinator) firstMissing(byName map[string][]*api.ServiceRegistration, index map[string]int) string {
	var missing []string
	for _, g := range co.groups {
		for _, s := range g.services {
			have := make([]bool, g.count)
			for _, r := range byName[s.name] {
				if index == nil {
					if i, ok := tagIndex(r.Tags); ok && i < g.count {
						have[i] = true
					}
				} else if i, ok := index[r.AllocID]; ok && i < g.count {
					have[i] = true
				}
			}
			for i, ok := range have {
				if !ok {
					missing = append(missing, g.name+"-"+strconv.Itoa(i))
				}
			}
		}
	}
	sort.Strings(missing)
	missing = compactStrings(missing)
	if len(missing) > 8 {
		missing = append(missing[:8], fmt.Sprintf("and %d more", len(missing)-8))
	}
	return strings.Join(missing, " ")
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// tagIndex reads the idx-<i> tag of a registration.
func tagIndex(tags []string) (int, bool) {
	for _, t := range tags {
		if rest, ok := strings.CutPrefix(t, "idx-"); ok {
			i, err := strconv.Atoi(rest)
			return i, err == nil
		}
	}
	return 0, false
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
			if _, _, err = co.w.c.Variables().Create(v, (&api.WriteOptions{}).WithContext(ctx)); err == nil || ctx.Err() != nil {
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
		msg = fmt.Sprintf("jobshift: rendezvous timeout: after %s not every task of job %s was placed and registered; still missing: %s. Check 'nomad job status %s' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.",
			w.rvTimeout, w.id, missing, w.id)
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
