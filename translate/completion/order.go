package completion

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
)

// The step order (jobs.Role.DependsOn): a role's tasks start only once every
// role it depends on has reached the named state. One rule for every format
// and every driver; the drivers only ask it.
//
// JobSet (kubernetes-sigs/jobset pkg/controllers/depends_on.go,
// dependencyReachedStatus; Trainer v2 runtimes are JobSets):
//   - Complete: every Job of the replicated job succeeded
//     (replicas == status.Succeeded);
//   - Ready: every Job is ready, failed or succeeded
//     (replicas == Ready + Failed + Succeeded): every task has started,
//     whether it is still running or has ended.
//
// A dependency that can no longer hold is a start that never happens:
// Complete once a task of the dependency failed or was stopped (Ready
// always holds once every task has started, as JobSet counts failed Jobs).
// The driver then ends the attempt (Blocked): the dependent role would wait forever, and on
// Kubernetes the JobSet's failure policy fails the set when a child Job
// fails.

// StartDecision is whether a role may start now.
type StartDecision int

const (
	StartNow   StartDecision = iota // every dependency holds
	StartWait                       // some dependency does not hold yet
	StartNever                      // some dependency can no longer hold
)

func (d StartDecision) String() string {
	switch d {
	case StartNow:
		return "start"
	case StartWait:
		return "wait"
	}
	return "never"
}

// MayStart decides whether role's tasks may start, given the observed tasks
// of the current attempt (any order; tasks absent from tasks count as
// Pending). The reason names the dependency that decided a wait or never.
func MayStart(job *jobs.Job, role *jobs.Role, tasks []Task) (StartDecision, string) {
	if len(role.DependsOn) == 0 {
		return StartNow, ""
	}
	byRole := map[string][]Task{}
	for _, t := range tasks {
		byRole[t.Role] = append(byRole[t.Role], t)
	}
	decision, reason := StartNow, ""
	for _, dep := range role.DependsOn {
		d, why := dependencyHolds(job, dep, byRole[dep.Role])
		if d > decision {
			decision, reason = d, why
		}
	}
	return decision, reason
}

// dependencyHolds judges one dependency from its role's observed tasks.
func dependencyHolds(job *jobs.Job, dep jobs.Dependency, tasks []Task) (StartDecision, string) {
	r := job.Role(dep.Role)
	if r == nil {
		return StartNever, fmt.Sprintf("it depends on role %q, which the job does not have", dep.Role)
	}
	started, succeeded := 0, 0
	seen := map[int]bool{}
	for _, t := range tasks {
		if seen[t.Index] || t.Index < 0 || t.Index >= r.Instances {
			continue
		}
		seen[t.Index] = true
		switch t.State {
		case Pending:
			continue
		case Stopped:
			if dep.Status == jobs.DependsComplete {
				return StartNever, fmt.Sprintf("it waits for role %s to complete and task %s-%d was stopped", r.Name, r.Name, t.Index)
			}
		case Failed:
			if dep.Status == jobs.DependsComplete {
				return StartNever, fmt.Sprintf("it waits for role %s to complete and task %s-%d failed (exit %d)", r.Name, r.Name, t.Index, t.ExitCode)
			}
		case Succeeded:
			succeeded++
		}
		started++
	}
	switch dep.Status {
	case jobs.DependsComplete:
		if succeeded == r.Instances {
			return StartNow, ""
		}
		return StartWait, fmt.Sprintf("it waits for role %s to complete (%d of %d tasks succeeded)", r.Name, succeeded, r.Instances)
	case jobs.DependsReady:
		if started == r.Instances {
			return StartNow, ""
		}
		return StartWait, fmt.Sprintf("it waits for role %s to be ready (%d of %d tasks started)", r.Name, started, r.Instances)
	}
	return StartNever, fmt.Sprintf("it depends on role %s reaching %q, a state jobshift does not know (Ready or Complete)", r.Name, dep.Status)
}

// Blocked lists the roles of job that can never start in this attempt
// (MayStart says StartNever) and have not started, with the reason: the
// driver ends the attempt as failed when any role is blocked.
func Blocked(job *jobs.Job, tasks []Task) (role string, reason string, blocked bool) {
	started := map[string]bool{}
	for _, t := range tasks {
		if t.State != Pending {
			started[t.Role] = true
		}
	}
	for _, r := range job.Roles {
		if started[r.Name] {
			continue
		}
		if d, why := MayStart(job, r, tasks); d == StartNever {
			return r.Name, fmt.Sprintf("role %s can never start: %s", r.Name, why), true
		}
	}
	return "", "", false
}

// CheckOrder reports a dependency cycle or a dependency on an unknown role:
// such a job never starts some role, on Kubernetes as here (JobSet's
// validation rejects both). It returns the first offending dependency.
func CheckOrder(job *jobs.Job) (jobs.Pos, string, bool) {
	for _, r := range job.Roles {
		for _, d := range r.DependsOn {
			if job.Role(d.Role) == nil {
				return d.Pos, fmt.Sprintf("Role %s depends on role %q, which the job does not have.", r.Name, d.Role), false
			}
			if d.Status != jobs.DependsReady && d.Status != jobs.DependsComplete {
				return d.Pos, fmt.Sprintf("Role %s depends on role %s reaching %q; the states are Ready and Complete.", r.Name, d.Role, d.Status), false
			}
		}
	}
	state := map[string]int{} // 0 unseen, 1 on the path, 2 done
	var visit func(r *jobs.Role) (jobs.Pos, string, bool)
	visit = func(r *jobs.Role) (jobs.Pos, string, bool) {
		state[r.Name] = 1
		for _, d := range r.DependsOn {
			switch state[d.Role] {
			case 1:
				return d.Pos, fmt.Sprintf("Role %s depends on role %s, which (through its own dependencies) waits for %s: neither can ever start.", r.Name, d.Role, r.Name), false
			case 0:
				if p, msg, ok := visit(job.Role(d.Role)); !ok {
					return p, msg, false
				}
			}
		}
		state[r.Name] = 2
		return jobs.Pos{}, "", true
	}
	for _, r := range job.Roles {
		if state[r.Name] == 0 {
			if p, msg, ok := visit(r); !ok {
				return p, msg, false
			}
		}
	}
	return jobs.Pos{}, "", true
}
