package nomad

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// Controller watches every jobshift job of the cluster (found by the
// MetaVersion key in job meta) and enforces its completion rules, as `run`
// does for its own job. It lists the jobs of every namespace its token may
// list (Namespace "*": Nomad filters a wildcard list by the token's ACL)
// and watches each job through its own namespace's client (clientIn), so
// one controller serves a site with a namespace per user. It keeps no state of its own: a watcher rebuilds
// everything from Nomad (allocations, the attempt and retry counters in
// job meta, a recorded verdict in a Variable), so a restarted controller —
// for example one running as a Nomad service job that was rescheduled —
// resumes where the last one stopped. Verdicts already recorded are never
// acted on again, and retries register with the job's modify index, so a
// controller and a `run` watching the same job cannot retry it twice.
type Controller struct {
	D *Driver
	// Log receives one record per event, with the job ID and the event's
	// fields as key/value pairs (nil = no logging). The CLI gives it a
	// text or JSON go-hclog logger (jobshift controller -log-json), so a
	// log pipeline reads fields, not sentences.
	Log hclog.Logger
	// Every is the fallback poll period of the job list (the list is read
	// with blocking queries; this bounds the wait).
	Every time.Duration
	// Namespace limits the controller to one namespace ("" = "*", every
	// namespace the token may list).
	Namespace string
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
	ns := ct.Namespace
	if ns == "" {
		ns = api.AllNamespacesNamespace
	}
	var mu sync.Mutex
	// by namespace and ID: two users' namespaces may hold the same job ID
	watching := map[string]bool{}
	// settled: stopped or dead jobs already looked at, by modify index. A
	// stopped job is not necessarily finished: a watcher (this controller
	// before a restart, or a killed `jobshift run`) stops the failed
	// attempt before it retries it, and may die in between. So a stopped
	// job is watched once (the watcher returns at once when a verdict is
	// recorded, else it finishes the work: the retry, or the verdict), and
	// again only when it changes.
	settled := map[string]uint64{}
	var index uint64
	for ctx.Err() == nil {
		q := (&api.QueryOptions{Namespace: ns, WaitIndex: index, WaitTime: every}).WithContext(ctx)
		list, meta, err := c.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}}, q)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			ct.log().Error("listing jobs", "error", err)
			time.Sleep(2 * time.Second)
			continue
		}
		index = meta.LastIndex
		for _, j := range list {
			if _, ok := j.Meta[MetaVersion]; !ok {
				continue
			}
			ended := j.Stop || j.Status == "dead"
			key := j.Namespace + "/" + j.ID
			mu.Lock()
			busy := watching[key] || ended && settled[key] == j.ModifyIndex
			if !busy {
				watching[key] = true
			}
			mu.Unlock()
			if busy {
				continue
			}
			go func(ns, id string, ended bool, modify uint64) {
				ct.watch(ctx, ns, id)
				mu.Lock()
				delete(watching, ns+"/"+id)
				if ended {
					settled[ns+"/"+id] = modify
				}
				mu.Unlock()
			}(j.Namespace, j.ID, ended, j.ModifyIndex)
		}
	}
	return ctx.Err()
}

func (ct *Controller) watch(ctx context.Context, ns, id string) {
	l := ct.log().With("job", id, "namespace", ns)
	h := drivers.Handle{Driver: TargetHCL, ID: id}
	if ns != "" {
		h.Meta = map[string]string{drivers.MetaNamespace: ns}
	}
	ev, err := ct.D.Watch(ctx, h)
	if err != nil {
		l.Error("cannot watch", "error", err)
		return
	}
	l.Info("watching")
	for e := range ev {
		switch {
		case e.Final != nil:
			l.Info("verdict", "phase", e.Final.Phase, "exit_code", e.Final.ExitCode, "attempts", e.Final.Attempts, "reason", e.Final.Reason)
		case e.Task != nil:
			l.Info("task", "role", e.Task.Role, "index", e.Task.Index, "state", e.State)
		case e.Message != "":
			l.Info(e.Message)
		}
	}
}

func (ct *Controller) log() hclog.Logger {
	if ct.Log == nil {
		return hclog.NewNullLogger()
	}
	return ct.Log
}
