package nomad

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
)

// Stop stops every task of the job (Nomad deregister, not purge: the job
// and its allocations stay visible to `status` and `logs`). A watcher sees
// the tasks end and reports the job Stopped.
func (d *Driver) Stop(ctx context.Context, h drivers.Handle) error {
	c, err := d.clientFor(h)
	if err != nil {
		return err
	}
	if _, _, err := c.Jobs().Deregister(h.ID, false, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		if strings.Contains(err.Error(), "404") {
			return fmt.Errorf("nomad job %q: %w", h.ID, drivers.ErrNotFound)
		}
		return unavailable(err)
	}
	return nil
}

// Logs returns one task's output (the main task of the allocation of the
// job's latest version for that role and index). Without a task the first
// task's is returned: Nomad keeps logs per allocation.
func (d *Driver) Logs(ctx context.Context, h drivers.Handle, opts drivers.LogOptions) (io.ReadCloser, error) {
	c, err := d.clientFor(h)
	if err != nil {
		return nil, err
	}
	_, _, err = c.Jobs().Info(h.ID, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("nomad job %q: %w", h.ID, drivers.ErrNotFound)
	}
	allocs, _, err := c.Jobs().Allocations(h.ID, true, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, unavailable(err)
	}
	var pick *api.AllocationListStub
	for _, a := range allocs {
		if opts.Task != nil {
			idx, ok := allocIndex(a.Name)
			if !ok || idx != opts.Task.Index || a.TaskGroup != groupName(opts.Task.Role) {
				continue
			}
		}
		if pick == nil || a.JobVersion > pick.JobVersion || (a.JobVersion == pick.JobVersion && a.CreateIndex > pick.CreateIndex) {
			pick = a
		}
	}
	if pick == nil {
		return nil, fmt.Errorf("nomad job %q has no allocation for that task yet: %w", h.ID, drivers.ErrNotFound)
	}
	alloc, _, err := c.Allocations().Info(pick.ID, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return nil, unavailable(err)
	}
	stream := "stdout"
	if opts.Stderr {
		stream = "stderr"
	}
	return logStream(ctx, c, alloc, stream, opts.Follow), nil
}

// logStream reads stream ("stdout", "stderr") of alloc's main task from
// its start, following it with follow; closing it ends the request.
func logStream(ctx context.Context, c *api.Client, alloc *api.Allocation, stream string, follow bool) io.ReadCloser {
	cancel := make(chan struct{})
	frames, errs := c.AllocFS().Logs(alloc, follow, MainTask, stream, "start", 0, cancel, (&api.QueryOptions{}).WithContext(ctx))
	pr, pw := io.Pipe()
	go func() {
		defer close(cancel)
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					pw.Close()
					return
				}
				if _, err := pw.Write(f.Data); err != nil {
					return
				}
			case err := <-errs:
				pw.CloseWithError(err)
				return
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			}
		}
	}()
	return pr
}
