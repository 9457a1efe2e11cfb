package volcano

import (
	"fmt"
	"time"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// taskIgnored are task fields that only concern Volcano's scheduler.
var taskIgnored = map[string]string{
	"topologyPolicy":  "NUMA topology placement is the node's",
	"partitionPolicy": "partitioned gang placement is Volcano's scheduler",
}

// task reads spec.tasks[i] into a role and its Volcano fields.
func (r *reader) task(job *jobs.Job, v *jobs.Volcano, n *yaml.Node, i int, inj []string) {
	where := fmt.Sprintf("spec.tasks[%d]", i)
	t := r.mapOf(n, where)
	nameNode := t.get("name")
	name, _ := r.str(nameNode, where+".name")
	if name == "" {
		name = fmt.Sprintf("%s%d", DefaultTaskName, i) // mutateSpec
		nameNode = n
	} else if len(name) > 63 || !dns1123Label.MatchString(name) {
		r.errorf(nameNode, "Invalid task name", "Task name %q is not a DNS-1123 label (lower-case letters, digits and '-'); Volcano's CRD validation rejects it.", name)
	}
	for _, prev := range job.Roles {
		if prev.Name == name {
			r.errorf(nameNode, "Duplicated task name", "Task name %q is used twice; Volcano's webhook rejects the job (\"duplicated task name\").", name)
		}
	}
	if pod := job.Name + "-" + name + "-" + fmt.Sprint(i); len(pod) > 63 {
		// validateK8sPodNameLength, with the task's position as index
		r.errorf(nameNode, "Pod name too long", "The pod name %q (job-task-index) is longer than 63 characters; Volcano's webhook rejects the job. Shorten the job or task name.", pod)
	}
	role := &jobs.Role{Name: name, Pos: r.pos(nameNode), Instances: 0, Command: jobs.Command{Kind: jobs.CommandArgv, Pos: r.pos(n)}}
	vt := jobs.VolcanoTask{Name: name, MaxRetry: DefaultTaskMaxRetry}
	if rn := t.get("replicas"); rn != nil {
		role.InstancesPos = r.pos(rn)
		if c, ok := r.count(rn, where+".replicas"); ok {
			role.Instances = c
		}
	}
	if role.Instances == 0 {
		r.warnf(nameNode, "No instances", "%s has no replicas (absent or 0): this task starts no pod.", where)
	}
	vt.MinAvailable = role.Instances
	if mn := t.get("minAvailable"); mn != nil {
		if c, ok := r.count(mn, where+".minAvailable"); ok {
			vt.MinAvailable = c
			if c > role.Instances {
				r.errorf(mn, "minAvailable above replicas", "%s.minAvailable (%d) is greater than its replicas (%d); Volcano's webhook rejects the job.", where, c, role.Instances)
			}
		}
	}
	if mn := t.get("maxRetry"); mn != nil {
		if c, ok := r.integer(mn, where+".maxRetry"); ok && c != 0 {
			vt.MaxRetry = c
		}
	}
	vt.Policies = r.policies(t.get("policies"), where+".policies")
	r.taskDeps(role, t, where)
	r.template(role, t, where, inj)
	for f, why := range taskIgnored {
		if k, _ := t.field(f); k != nil {
			r.warnf(k, "Scheduling field ignored: "+f, "%s.%s is ignored: %s.", where, f, why)
		}
	}
	t.warnUnknown()
	job.Roles = append(job.Roles, role)
	v.Tasks = append(v.Tasks, vt)
}

// template reads the pod template with the Kubeflow readers' pod rules.
// The pod's restartPolicy defaults to Kubernetes' Always.
func (r *reader) template(role *jobs.Role, t *mapping, where string, inj []string) {
	k, tn := t.field("template")
	if tn == nil {
		r.errorf(k, "Missing template", "%s has no template; add template.spec.containers with the task's container.", where)
		return
	}
	pr := newPodReader(r)
	rp, _ := pr.Template(role, tn, where+".template", inj)
	r.Diags = append(r.Diags, pr.Diags()...)
	if rp == "" {
		rp = "Always"
	}
	role.RestartPolicy = rp
}

// taskDeps reads dependsOn: the tasks named must be ready (every pod
// running) before this one starts (job_controller_actions.go
// waitDependsOnTaskMeetCondition @v1.16.0-alpha.1; iteration any: one of
// them suffices, which jobshift does not model: every dependency is awaited).
func (r *reader) taskDeps(role *jobs.Role, t *mapping, where string) {
	k, n := t.field("dependsOn")
	if n == nil {
		return
	}
	d := r.mapOf(n, where+".dependsOn")
	_, names := d.field("name")
	for i, e := range r.seq(names, where+".dependsOn.name") {
		if s, ok := r.str(e, fmt.Sprintf("%s.dependsOn.name[%d]", where, i)); ok {
			role.DependsOn = append(role.DependsOn, jobs.Dependency{Role: s, Status: jobs.DependsReady, Pos: r.pos(e)})
		}
	}
	if it, ok := r.str(d.get("iteration"), where+".dependsOn.iteration"); ok && it == "any" && len(role.DependsOn) > 1 {
		r.warnf(k, "dependsOn iteration any", "iteration: any starts this task once any one of %d tasks is ready; jobshift waits for all of them.", len(role.DependsOn))
	}
	d.warnUnknown()
}

// Events and actions a policy may name (policyEventMap, policyActionMap in
// pkg/webhooks/admission/jobs/validate/util.go @v1.16.0-alpha.1).
var (
	validEvents  = []string{"*", "PodFailed", "PodEvicted", "PodPending", "Unknown", "TaskCompleted", "TaskFailed", "JobUpdated"}
	validActions = []string{"AbortJob", "RestartJob", "RestartTask", "RestartPod", "RestartPartition", "TerminateJob", "CompleteJob", "ResumeJob"}
)

func member(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// policies reads a policy list and applies validatePolicies: event and
// exitCode exclude each other, one is required, events and actions from
// the allowed lists, no event or exit code twice, exit code 0 refused, "*"
// alone.
func (r *reader) policies(n *yaml.Node, where string) []jobs.VolcanoPolicy {
	var out []jobs.VolcanoPolicy
	events, codes := map[string]bool{}, map[int]bool{}
	for i, e := range r.seq(n, where) {
		w := fmt.Sprintf("%s[%d]", where, i)
		p, ok := r.policy(e, w)
		if !ok {
			continue
		}
		for _, ev := range p.Events {
			if events[ev] {
				r.errorf(e, "Duplicate policy event", "%s: event %s appears in more than one policy; Volcano's webhook rejects the job.", w, ev)
			}
			events[ev] = true
		}
		if p.ExitCode != nil {
			if codes[*p.ExitCode] {
				r.errorf(e, "Duplicate policy exit code", "%s: exitCode %d appears twice; Volcano's webhook rejects the job.", w, *p.ExitCode)
			}
			codes[*p.ExitCode] = true
		}
		out = append(out, p)
	}
	if events["*"] && len(events) > 1 {
		r.errorf(n, "Event * with other events", "%s: with a policy for every event (*), no other event policy may be given; Volcano's webhook rejects the job.", where)
	}
	return out
}

func (r *reader) policy(n *yaml.Node, w string) (jobs.VolcanoPolicy, bool) {
	m := r.mapOf(n, w)
	p := jobs.VolcanoPolicy{Pos: r.pos(n)}
	if ev, ok := r.str(m.get("event"), w+".event"); ok {
		p.Events = append(p.Events, ev)
	}
	for _, ev := range r.strList(m.get("events"), w+".events") {
		if !member(p.Events, ev) {
			p.Events = append(p.Events, ev)
		}
	}
	if c, ok := r.integer(m.get("exitCode"), w+".exitCode"); ok {
		p.ExitCode = &c
	}
	p.Action, _ = r.str(m.get("action"), w+".action")
	if tn := m.get("timeout"); tn != nil {
		if s, ok := r.str(tn, w+".timeout"); ok {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				r.errorf(tn, "Invalid timeout", "%s.timeout %q is not a duration such as 90s or 10m.", w, s)
			}
			// translate/completion delayed.go holds a job's action for its
			// timeout, and an in-place restart waits for it
			// (VolcanoRestartDelay): applied on every target
			p.TimeoutSeconds = d.Seconds()
		}
	}
	m.warnUnknown()
	switch {
	case len(p.Events) > 0 && p.ExitCode != nil:
		r.errorf(n, "Event and exitCode together", "%s sets both an event and an exitCode; Volcano's webhook rejects it (\"must not specify event and exitCode simultaneously\").", w)
	case len(p.Events) == 0 && p.ExitCode == nil:
		r.errorf(n, "Policy without event or exitCode", "%s needs an event (or events) or an exitCode; Volcano's webhook rejects it.", w)
	case p.ExitCode != nil && *p.ExitCode == 0:
		r.errorf(n, "Exit code 0 in a policy", "%s: 0 is not a valid error code (Volcano's webhook).", w)
	default:
		return p, r.checkPolicy(n, w, p)
	}
	return p, false
}

// checkPolicy refuses events and actions Volcano does not accept, and the
// ones jobshift cannot carry.
func (r *reader) checkPolicy(n *yaml.Node, w string, p jobs.VolcanoPolicy) bool {
	for _, ev := range p.Events {
		if !member(validEvents, ev) {
			r.errorf(n, "Invalid policy event", "%s: %q is not a policy event; valid are %v.", w, ev, validEvents)
			return false
		}
	}
	if !member(validActions, p.Action) {
		r.errorf(n, "Invalid policy action", "%s: action %q is not valid; valid are %v.", w, p.Action, validActions)
		return false
	}
	switch p.Action {
	case "ResumeJob", "RestartPartition":
		r.lossyf(n, "Policy action not supported", "%s: action %s needs Volcano's command bus or partitions; jobshift cannot carry it.", w, p.Action)
	}
	return true
}
