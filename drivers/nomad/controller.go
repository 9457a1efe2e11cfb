package nomad

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// Controller watches every jobshift job of the cluster (found by the
// MetaVersion key in job meta) and enforces its completion rules, as `run`
// does for its own job. It keeps no state of its own: a watcher rebuilds
// everything from Nomad (allocations, the attempt and retry counters in
// job meta, a recorded verdict in a Variable), so a restarted controller —
// for example one running as a Nomad service job that was rescheduled —
// resumes where the last one stopped. Verdicts already recorded are never
// acted on again, and retries register with the job's modify index, so a
// controller and a `run` watching the same job cannot retry it twice.
type Controller struct {
	D   *Driver
	Log io.Writer
	// Every is the fallback poll period of the job list (the list is read
	// with blocking queries; this bounds the wait).
	Every time.Duration
}

// Run blocks until ctx is done.
func (ct *Controller) Run(ctx context.Context) error {
	c, err := ct.D.Client()
	if err != nil {
		return err
	}
	every := ct.Every
	if every <= 0 {
		every = 30 * time.Second
	}
	var mu sync.Mutex
	watching := map[string]bool{}
	var index uint64
	for ctx.Err() == nil {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: every}).WithContext(ctx)
		list, meta, err := c.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}}, q)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			ct.logf("listing jobs: %v", err)
			time.Sleep(2 * time.Second)
			continue
		}
		index = meta.LastIndex
		for _, j := range list {
			if _, ok := j.Meta[MetaVersion]; !ok || j.Stop || j.Status == "dead" {
				continue
			}
			mu.Lock()
			busy := watching[j.ID]
			watching[j.ID] = true
			mu.Unlock()
			if busy {
				continue
			}
			go func(id string) {
				defer func() { mu.Lock(); delete(watching, id); mu.Unlock() }()
				ct.watch(ctx, id)
			}(j.ID)
		}
	}
	return ctx.Err()
}

func (ct *Controller) watch(ctx context.Context, id string) {
	ev, err := ct.D.Watch(ctx, drivers.Handle{Driver: TargetHCL, ID: id})
	if err != nil {
		ct.logf("%s: %v", id, err)
		return
	}
	ct.logf("%s: watching", id)
	for e := range ev {
		switch {
		case e.Final != nil:
			ct.logf("%s: %s (exit code %d) after %d attempt(s): %s", id, e.Final.Phase, e.Final.ExitCode, e.Final.Attempts, e.Final.Reason)
		case e.Task != nil:
			ct.logf("%s: %s-%d %s", id, e.Task.Role, e.Task.Index, e.State)
		case e.Message != "":
			ct.logf("%s: %s", id, e.Message)
		}
	}
}

func (ct *Controller) logf(format string, args ...any) {
	if ct.Log != nil {
		fmt.Fprintf(ct.Log, time.Now().Format(time.RFC3339)+" "+format+"\n", args...)
	}
}
