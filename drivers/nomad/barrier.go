package nomad

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
)

// barrier is the prestart task of every group: it exits 0 once every
// role/index of this job has its group services registered, so the main
// task's env template (rendered only after prestart tasks finish) sees the
// whole topology. Group services are registered before any task of an
// alloc runs (spec/nomad.md §2), so a placed peer is visible at once.
//
// The template re-renders on every registration change (wait 0s: the
// default 5 s quiescence would add 5 s to every start) and writes READY or
// the list of missing tasks; the shell loop only watches the file.
// "Registered right now" is the test, so a peer that already finished and
// deregistered keeps the barrier waiting: the timeout ends that, and any
// job that cannot be fully placed, with a message saying who was missing.
//
// The same hazard exists one step later: a peer whose whole main task runs
// shorter than the skew between peers leaving their barriers (≤ 0.1 s poll
// plus a template render) deregisters before a slower peer's env template
// reads the registry, and that peer sees a short host list. Training peers
// block on each other, so this does not happen to real jobs. The barrier
// is the rendezvous of jobs nobody watches (converted files submitted with
// `nomad job run`, `run -detach`); a job `run` watches meets through one
// topology snapshot its watcher writes (topology.go), which has neither
// the extra task nor this hazard.
func (r *renderer) barrier(role *jobs.Role, gs *GroupShape, all []Service) *api.Task {
	driver := gs.Driver
	timeout := r.set.gangTimeout(r.plan.Job.Completion)
	limit := int(timeout.Seconds() * 10) // polls of 0.1 s: the skew between peers starting
	// Shell builtins only in the loop but for sleep: with many tasks per
	// node, forking grep every 0.1 s in every barrier costs real CPU.
	// Not change_mode = "signal" (wake the loop on each re-render): a
	// re-render after the barrier exited makes Nomad fail the allocation
	// ("Template failed to send signals: Task not running"), seen with 64
	// tasks.
	script := fmt.Sprintf(`n=0
while :; do
  l=
  IFS= read -r l < "$NOMAD_TASK_DIR/barrier" 2>/dev/null
  [ "$l" = READY ] && exit 0
  n=$((n+1))
  if [ "$n" -gt %d ]; then
    echo "jobshift: barrier timeout: after %s not every task of job %s was placed and registered; still missing: $l. Check 'nomad job status %s' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is %s." >&2
    exit 1
  fi
  sleep 0.1
done
`, limit, timeout, r.jobID, r.jobID, timeoutSource(r.plan.Job.Completion))
	t := &api.Task{
		Name:      BarrierTask,
		Driver:    driver,
		Lifecycle: &api.TaskLifecycle{Hook: "prestart", Sidecar: false},
		Resources: &api.Resources{CPU: new(20), MemoryMB: new(32)},
		Templates: []*api.Template{{
			EmbeddedTmpl: new(r.barrierText(all)),
			DestPath:     new("local/barrier"),
			ChangeMode:   new("noop"),
			Wait:         &api.WaitConfig{Min: durationPtr(0), Max: durationPtr(0)},
		}},
	}
	switch {
	case gs.Traits.Container:
		// The role's own image: no other image is known to exist (no
		// registry may be reachable), and every image has /bin/sh.
		t.Config = map[string]any{"image": r.image(role), "entrypoint": []string{"/bin/sh"}, "args": []string{"-c", script}}
		if driver == "podman" {
			t.Config = map[string]any{"image": r.image(role), "entrypoint": "/bin/sh", "args": []string{"-c", script}}
		}
	default:
		t.Config = map[string]any{"command": "/bin/sh", "args": []string{"-c", script}}
	}
	return t
}

// barrierText is barrierTemplate of the job's services, rendered once per
// job: a job of N roles has N groups of one barrier each, each naming all
// of the N roles' services.
func (r *renderer) barrierText(all []Service) string {
	if r.barrierTmpl == "" {
		r.barrierTmpl = barrierTemplate(r.plan.Job, all)
	}
	return r.barrierTmpl
}

// barrierTemplate renders READY when every service of every role has an
// instance with tag idx-<i> for each i < instances, registered by this job;
// else "WAITING role-i ...". Each render is linear in the registrations:
// tags go into consul-template's scratch (fresh for every render) and each
// index is looked up, instead of scanning all instances for each index
// (every barrier re-renders on every registration, so a quadratic render
// made large jobs slow to start).
func barrierTemplate(job *jobs.Job, all []Service) string {
	var b strings.Builder
	b.Grow(128 + 400*len(all))
	b.WriteString("{{- $job := env \"NOMAD_JOB_ID\" -}}\n{{- $missing := \"\" -}}\n")
	for k, s := range all {
		role := job.Role(s.Role)
		if role == nil {
			continue
		}
		fmt.Fprintf(&b, "{{- range $s := nomadService %s }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print \"%d/\" .) true }}{{ end }}{{ end }}{{ end -}}\n",
			quoteTemplateString(s.Name), k)
		fmt.Fprintf(&b, "{{- range $i := loop %d }}{{ if not (scratch.Key (print \"%d/idx-\" $i)) }}{{ $missing = printf \"%%s %%s-%%d\" $missing %s $i }}{{ end }}{{ end -}}\n",
			role.Instances, k, quoteTemplateString(s.Role))
	}
	b.WriteString("{{ if eq $missing \"\" }}READY{{ else }}WAITING{{ $missing }}{{ end }}\n")
	return b.String()
}

// timeoutSource names where the barrier's timeout comes from, for its message.
func timeoutSource(c jobs.Completion) string {
	if c.GangTimeoutSeconds > 0 {
		return "the job's pod-group schedule timeout (scheduleTimeoutSeconds)"
	}
	return "nomad.barrier_timeout in the site config"
}
