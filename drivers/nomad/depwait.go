package nomad

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// The step order (jobs.Role.DependsOn) on Nomad. Nomad starts every group
// of a job at once and orders tasks only inside a group (lifecycle hooks:
// website/content/docs/job-specification/lifecycle.mdx, v1.11.3), so a
// role that depends on others gets a prestart task, WaitTask, that runs
// the site's helper (`jobshift nomad-wait ROLE=STATUS...`, raw_exec, as
// the finisher) in each of its allocations: it follows the job's
// allocations through the Task API with blocking queries and ends when
// completion.MayStart says the role may start (translate/completion/
// order.go: Ready = every task of the dependency started, Complete =
// every one succeeded, as JobSet's dependsOn), so the main task starts
// then; when MayStart says never (a task of a Complete dependency failed
// or was stopped) it fails, which fails the allocation (the group's
// restart policy has no attempts) and so the attempt, as JobSet's failure
// policy fails the set. It needs nobody outside the job: a converted job
// run with `nomad job run` keeps the order as `jobshift run` does.

// WaitTask is the prestart task that waits for a role's dependencies. Its
// name is short: its Task API socket lives under the task's directory, and
// a unix socket path has at most 107 bytes (finisher.go); with
// "jobshift-wait" the dev agent made none (the wait failed "dial unix
// api.sock: no such file or directory").
const WaitTask = "wait"

// WaitCommand is the helper's subcommand WaitTask runs.
const WaitCommand = "nomad-wait"

// waitTask is the group's WaitTask.
func (r *renderer) waitTask(role *jobs.Role) *api.Task {
	args := []string{WaitCommand}
	for _, d := range role.DependsOn {
		args = append(args, d.Role+"="+string(d.Status))
	}
	return &api.Task{
		Name:       WaitTask,
		Driver:     "raw_exec",
		Lifecycle:  &api.TaskLifecycle{Hook: "prestart", Sidecar: false},
		Config:     map[string]any{"command": r.set.Helper, "args": args},
		Identities: []*api.WorkloadIdentity{{Name: "default", Env: true}},
		Resources:  &api.Resources{CPU: new(50), MemoryMB: new(64)},
	}
}

// ParseDeps reads WaitTask's arguments (ROLE=STATUS each).
func ParseDeps(args []string) ([]jobs.Dependency, error) {
	var deps []jobs.Dependency
	for _, a := range args {
		role, status, ok := strings.Cut(a, "=")
		if !ok || role == "" || (status != string(jobs.DependsReady) && status != string(jobs.DependsComplete)) {
			return nil, fmt.Errorf("%q is not ROLE=Ready or ROLE=Complete", a)
		}
		deps = append(deps, jobs.Dependency{Role: role, Status: jobs.DependencyStatus(status)})
	}
	return deps, nil
}

// WaitDeps blocks until the dependencies deps of the job id hold in its
// current version (nil), or can never hold (an error naming why), or ctx
// ends. report says what it waits for when that changes.
func (d *Driver) WaitDeps(ctx context.Context, id string, deps []jobs.Dependency, report func(string)) error {
	c, err := d.Client()
	if err != nil {
		return err
	}
	info, _, err := c.Jobs().Info(id, (&api.QueryOptions{}).WithContext(ctx))
	if err != nil {
		return fmt.Errorf("nomad job %q: %w", id, unavailable(err))
	}
	pol, ok := ParsePolicy(info.Meta)
	if !ok {
		return fmt.Errorf("nomad job %q: %w (no %s meta)", id, ErrNotJobshift, MetaPolicy)
	}
	job := pol.Job()
	self := &jobs.Role{Name: "(this role)", DependsOn: deps}
	var index uint64
	said := ""
	for {
		q := &api.QueryOptions{WaitIndex: index, WaitTime: 30 * time.Second}
		allocs, meta, err := c.Jobs().Allocations(id, true, q.WithContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			time.Sleep(time.Second) // the agent restarts or a leader changes
			continue
		}
		index = meta.LastIndex
		decision, why := MayStartNow(pol, job, self, allocs, *info.Version)
		switch decision {
		case completion.StartNow:
			return nil
		case completion.StartNever:
			return fmt.Errorf("this role can never start: %s", why)
		}
		if why != said {
			report(why)
			said = why
		}
	}
}

// MayStartNow is completion.MayStart over the allocations of the job's
// version: the tasks as the watcher observes them.
func MayStartNow(pol completion.Policy, job *jobs.Job, role *jobs.Role, allocs []*api.AllocationListStub, version uint64) (completion.StartDecision, string) {
	var tasks []completion.Task
	for _, o := range observe(pol, allocs, version, nil) {
		tasks = append(tasks, o.Task)
	}
	return completion.MayStart(job, role, tasks)
}
