package nomad

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"
)

// clientFor is the API client pointed at the handle's namespace (a handle
// typed as nomad:NS/ID, or returned by Submit for a namespaced job).
func (d *Driver) clientFor(h drivers.Handle) (*api.Client, error) {
	return d.clientIn(h.Meta[drivers.MetaNamespace])
}

// Inspect implements drivers.Inspector: the job's tasks as its latest
// version's allocations show them, and the verdict jobshift recorded, if
// any. It only reads: a job whose rules have fired but that no watcher
// enforced yet is still "running" here.
func (d *Driver) Inspect(ctx context.Context, h drivers.Handle) (*drivers.Status, error) {
	c, err := d.clientFor(h)
	if err != nil {
		return nil, err
	}
	info, _, err := c.Jobs().Info(h.ID, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		if strings.Contains(err.Error(), "404") {
			return nil, fmt.Errorf("nomad job %q: %w", h.ID, drivers.ErrNotFound)
		}
		return nil, fmt.Errorf("nomad job %q: %w", h.ID, unavailable(err))
	}
	return d.inspect(ctx, c, h, info)
}

func (d *Driver) inspect(ctx context.Context, c *api.Client, h drivers.Handle, info *api.Job) (*drivers.Status, error) {
	pol, ok := ParsePolicy(info.Meta)
	if !ok {
		return nil, fmt.Errorf("nomad job %q: %w (no %s meta)", h.ID, ErrNotJobshift, MetaPolicy)
	}
	w := &watcher{d: d, c: c, id: h.ID}
	allocs, _, err := c.Jobs().Allocations(h.ID, true, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, unavailable(err)
	}
	// The attempt is the version the allocations ran (a stopped job's
	// latest version has none).
	w.version = *info.Version
	if info.Stop != nil && *info.Stop {
		for i, a := range allocs {
			if i == 0 || a.JobVersion > w.version {
				w.version = a.JobVersion
			}
		}
	}
	if info.Namespace != nil && *info.Namespace != "default" {
		h.Meta = map[string]string{drivers.MetaNamespace: *info.Namespace}
	}
	st := &drivers.Status{Handle: drivers.Handle{Driver: TargetHCL, ID: h.ID, Meta: h.Meta}.String(),
		Name: info.Meta[MetaName], User: info.Meta[MetaUser], Phase: completion.PhaseRunning, Tasks: []drivers.TaskStatus{}}
	fmt.Sscan(info.Meta[MetaAttempt], &st.Attempt)
	if info.SubmitTime != nil {
		st.Submitted = time.Unix(0, *info.SubmitTime).UTC()
	}
	// a task whose command ended before a stop reached its in-task
	// finisher is that end: its marker, or once the watcher that saw the
	// verdict deleted the markers, the copy the verdict keeps (ends.go)
	rv := w.recordedVariable(ctx)
	if rv != nil && rv.Items["ends"] != "" {
		w.ends, w.endsRead = parseVerdictEnds(rv.Items["ends"]), map[string]bool{}
	}
	obs := w.withOwnEnds(ctx, observe(pol, allocs, w.version, nil))
	started, live := false, 0
	for _, o := range obs {
		started = started || o.State != completion.Pending
		if !o.State.Terminal() {
			live++
		}
		st.Tasks = append(st.Tasks, drivers.TaskStatus{Role: o.Role, Index: o.Index, State: o.State, ExitCode: o.ExitCode, Message: o.Message})
	}
	sort.Slice(st.Tasks, func(i, j int) bool {
		a, b := st.Tasks[i], st.Tasks[j]
		return roleOrder(pol, a.Role) < roleOrder(pol, b.Role) || a.Role == b.Role && a.Index < b.Index
	})
	if !started {
		st.Phase = drivers.PhasePending
	}
	if res := verdictResult(rv); res != nil {
		st.Phase, st.ExitCode, st.Reason = res.Phase, res.ExitCode, res.Reason
	} else if info.Stop != nil && *info.Stop {
		// Stopped from outside (jobshift stop, nomad job stop) and no
		// watcher recorded it: the verdict every watcher would give.
		if live > 0 {
			st.Reason = "stopping"
		} else {
			v := stoppedVerdict(pol, obs)
			st.Phase, st.ExitCode, st.Reason = v.Phase, v.ExitCode, v.Reason
		}
	} else if v := statusVerdict(pol, obs, st.Attempt, info.Meta); v != nil {
		// Decided but not enforced: say so, and what would enforce it
		// (the job's shape says whether finishers of its own will).
		by := "jobshift watch -enforce " + st.Handle + ", or jobshift controller"
		if ShapeOf(info).JudgedInJob() {
			by = "the job's finisher tasks when they run, or " + by
		}
		st.Reason = fmt.Sprintf("the job's rules say %s (%s), but nothing has enforced that yet: %s", v.Phase, v.Reason, by)
	}
	return st, nil
}

// List implements drivers.Lister: the jobshift jobs of the client's
// namespace (NOMAD_NAMESPACE or the site config's; "*" for every one the
// token may read), newest first.
func (d *Driver) List(ctx context.Context) ([]drivers.Status, error) {
	c, err := d.Client()
	if err != nil {
		return nil, err
	}
	stubs, _, err := c.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}}, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("listing nomad jobs: %w", unavailable(err))
	}
	sort.Slice(stubs, func(i, j int) bool { return stubs[i].SubmitTime > stubs[j].SubmitTime })
	var out []drivers.Status
	for _, s := range stubs {
		if s.Meta[MetaPolicy] == "" || s.ParentID != "" {
			continue
		}
		h := drivers.Handle{Driver: TargetHCL, ID: s.ID, Meta: map[string]string{drivers.MetaNamespace: s.Namespace}}
		jc, err := d.clientFor(h)
		if err != nil {
			return nil, err
		}
		info, _, err := jc.Jobs().Info(s.ID, (&api.QueryOptions{}).WithContext(ctx))
		if err != nil {
			continue // purged since the list
		}
		st, err := d.inspect(ctx, jc, h, info)
		if err != nil {
			continue
		}
		out = append(out, *st)
	}
	return out, nil
}

// statusVerdict is the verdict the job's finishers would give on the
// snapshot status sees (snapshotVerdict), nil when no rule fired.
func statusVerdict(pol completion.Policy, obs []observed, attempt int, meta map[string]string) *completion.Verdict {
	retries, _ := strconv.Atoi(meta[metaRetries])
	v, _ := snapshotVerdict(pol, obs, attempt, retries)
	return v
}
