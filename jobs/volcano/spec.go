package volcano

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Defaults of the admission webhook (pkg/webhooks/admission/jobs/mutate/
// mutate_job.go @v1.16.0-alpha.1): DefaultMaxRetry for the job,
// defaultMaxRetry for each task, DefaultTaskSpec + index for a task
// without a name (volcano-sh/apis pkg/apis/batch/v1alpha1/labels.go @v1.15.0).
const (
	DefaultMaxRetry     = 3
	DefaultTaskMaxRetry = 3
	DefaultTaskName     = "default"
)

// specIgnored are spec fields that only concern Kubernetes scheduling.
var specIgnored = map[string]string{
	"schedulerName":     "the scheduler is the target's",
	"priorityClassName": "priority classes are Kubernetes scheduling",
	"runningEstimate":   "a running-time estimate only feeds Volcano's scheduler",
	"networkTopology":   "network-topology-aware placement is Volcano's scheduler",
}

// spec reads spec: tasks first (the gang and the plugins refer to them).
func (r *reader) spec(job *jobs.Job, s *mapping) {
	v := &jobs.Volcano{MaxRetry: DefaultMaxRetry}
	job.Extras.Volcano = v
	tasksKey, tasksNode := s.field("tasks")
	tasks := r.seq(tasksNode, "spec.tasks")
	if len(tasks) == 0 {
		at := tasksKey
		if at == nil {
			at = s.node
		}
		r.errorf(at, "No task", "spec.tasks lists no task; Volcano's webhook rejects the job (\"No task specified in job spec\").")
	}
	inj := r.probeInjected(tasks, s.get("plugins"))
	for i, t := range tasks {
		r.task(job, v, t, i, inj)
	}
	r.gang(job, v, s)
	if n := s.get("maxRetry"); n != nil {
		if m, ok := r.count(n, "spec.maxRetry"); ok && m > 0 {
			v.MaxRetry = m
		}
	}
	job.Retry.Pos = r.pos(s.get("maxRetry"))
	v.Queue, _ = r.str(s.get("queue"), "spec.queue")
	if n := s.get("ttlSecondsAfterFinished"); n != nil {
		if t, ok := r.count(n, "spec.ttlSecondsAfterFinished"); ok {
			job.Retry.TTLSecondsAfterFinish = &t
		}
	}
	v.Policies = r.policies(s.get("policies"), "spec.policies")
	r.plugins(job, v, s.get("plugins"))
	r.volumes(s.get("volumes"))
	for name, why := range specIgnored {
		if k, _ := s.field(name); k != nil {
			r.warnf(k, "Scheduling field ignored: "+name, "spec.%s is ignored: %s.", name, why)
		}
	}
	r.dependsOn(job)
	r.hostnames(v, tasks)
	platform(job)
	s.warnUnknown()
}

// gang reads minAvailable and minSuccess against the tasks.
func (r *reader) gang(job *jobs.Job, v *jobs.Volcano, s *mapping) {
	total, sum := 0, 0
	for i, t := range v.Tasks {
		total += job.Roles[i].Instances
		sum += t.MinAvailable
	}
	v.MinAvailable = sum // patchDefaultMinAvailable
	if n := s.get("minAvailable"); n != nil {
		if m, ok := r.count(n, "spec.minAvailable"); ok && m > 0 {
			v.MinAvailable = m
			if m > total {
				r.errorf(n, "minAvailable above the replicas", "spec.minAvailable is %d but the tasks have %d replicas in all; Volcano rejects the job (\"job 'minAvailable' should not be greater than total replicas in tasks\").", m, total)
			}
		}
	}
	if n := s.get("minSuccess"); n != nil {
		if m, ok := r.integer(n, "spec.minSuccess"); ok {
			if m < 1 {
				r.errorf(n, "Invalid minSuccess", "spec.minSuccess must be at least 1 (Volcano's CRD: minimum 1), not %d.", m)
			}
			v.MinSuccess = &m
		}
	}
}

// volumes: Volcano's job-level volumes are PVCs it creates or binds.
// validateJobCreate refuses what validateIO refuses: no mountPath, a
// mountPath twice, neither volumeClaimName nor volumeClaim, both, or a
// claim name that is not a PersistentVolume name (a DNS-1123 subdomain)
// (pkg/webhooks/admission/jobs/validate/util.go validateIO
// @v1.16.0-alpha.1; e2e jobp/admission.go "invalid volume mount",
// "duplicate mount volume", "volume without volumeClaimName and
// volumeClaim").
func (r *reader) volumes(n *yaml.Node) {
	seen := map[string]bool{}
	for i, e := range r.seq(n, "spec.volumes") {
		m := r.mapOf(e, fmt.Sprintf("spec.volumes[%d]", i))
		mp, _ := r.str(m.get("mountPath"), "mountPath")
		name, hasName := r.str(m.get("volumeClaimName"), "volumeClaimName")
		claim := m.get("volumeClaim")
		hasClaim := claim != nil && !yamlpos.IsNull(yamlpos.Resolve(claim))
		switch {
		case mp == "":
			r.errorf(e, "Volume without mountPath", "spec.volumes[%d] has no mountPath; Volcano refuses the job (\"mountPath is required\"). Give the path the tasks mount the volume at.", i)
		case seen[mp]:
			r.errorf(e, "Volume mounted twice", "spec.volumes[%d] mounts %s again; Volcano refuses the job (\"duplicated mountPath\"). Give each volume its own mountPath.", i, mp)
		case !hasName && !hasClaim:
			r.errorf(e, "Volume without a claim", "spec.volumes[%d] at %s names neither volumeClaimName nor volumeClaim; Volcano refuses the job (\"either VolumeClaim or VolumeClaimName must be specified\").", i, mp)
		case hasName && hasClaim:
			r.errorf(e, "Volume with two claims", "spec.volumes[%d] at %s gives both volumeClaimName and volumeClaim; Volcano refuses the job: name an existing PVC with volumeClaimName, or describe a new one with volumeClaim, not both.", i, mp)
		case hasName && (len(name) > 253 || !dns1123Subdomain.MatchString(name)):
			r.errorf(e, "Invalid volumeClaimName", "volumeClaimName %q is not a PersistentVolumeClaim name (a DNS-1123 subdomain: lower-case letters, digits, '-' and '.'); Volcano refuses the job.", name)
		default:
			r.warnf(e, "Volume cannot be provided", "The job volume at %s is a Kubernetes PersistentVolumeClaim; jobshift cannot create or bind it. The task sees the path only if the site provides it (a site volume rule).", mp)
		}
		seen[mp] = true
		m.warnUnknown()
	}
}

// dependsOn checks the task graph as validateJobCreate's topoSort does
// (pkg/webhooks/admission/jobs/validate/util.go @v1.16.0-alpha.1): an
// unknown task name or a cycle is refused.
func (r *reader) dependsOn(job *jobs.Job) {
	idx := map[string]int{}
	for i, role := range job.Roles {
		idx[role.Name] = i
	}
	for _, role := range job.Roles {
		for _, d := range role.DependsOn {
			if _, ok := idx[d.Role]; !ok {
				r.Errorf(d.Pos, "Unknown task in dependsOn", "Task %q depends on %q, which is not a task of this job; Volcano refuses the job (\"doesn't form a directed acyclic graph\").", role.Name, d.Role)
			}
		}
	}
	state := make([]int, len(job.Roles)) // 0 new, 1 on the path, 2 done
	var visit func(i int) bool
	visit = func(i int) bool {
		if state[i] == 1 {
			return false
		}
		if state[i] == 2 {
			return true
		}
		state[i] = 1
		for _, d := range job.Roles[i].DependsOn {
			if j, ok := idx[d.Role]; ok && !visit(j) {
				return false
			}
		}
		state[i] = 2
		return true
	}
	for i, role := range job.Roles {
		if !visit(i) {
			r.Errorf(role.Pos, "Cycle in dependsOn", "The tasks' dependsOn form a cycle through %q; Volcano refuses the job (\"job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG)\").", role.Name)
			return
		}
	}
}

// probeInjected lists the variables the plugins in use append to every
// container's env (for the pod reader's override warnings), reading the
// plugin and task names silently (the full passes report on them).
func (r *reader) probeInjected(tasks []*yaml.Node, plugins *yaml.Node) []string {
	q := &reader{path: r.path}
	var out []string
	for _, kv := range q.mapOf(plugins, "").kvs {
		switch kv.Key {
		case "env":
			out = append(out, "VK_TASK_INDEX", "VC_TASK_INDEX")
		case "svc", "pytorch", "tensorflow", "mpi":
			for i, t := range tasks {
				name, _ := q.str(q.mapOf(t, "").get("name"), "")
				if name == "" {
					name = fmt.Sprintf("%s%d", DefaultTaskName, i)
				}
				k := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
				out = append(out, "VC_"+k+"_HOSTS", "VC_"+k+"_NUM")
			}
		}
		switch kv.Key {
		case "pytorch":
			out = append(out, "MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")
		case "tensorflow":
			out = append(out, "TF_CONFIG")
		case "mpi":
			out = append(out, "MPI_HOST")
		}
	}
	return out
}

// hostnames refuses a task template's own hostname or subdomain when a
// plugin writes pod names: Volcano then writes <hostname>.<subdomain>
// (and only one host for the task: GenerateHosts, MakeDomainName,
// generateSSHConfig @v1.16.0-alpha.1), while jobshift's tasks answer to
// <job>-<task>-<i>.<job>.
func (r *reader) hostnames(v *jobs.Volcano, tasks []*yaml.Node) {
	named := false
	for _, p := range []string{"svc", "ssh", "pytorch", "tensorflow", "mpi"} {
		named = named || v.Plugin(p) != nil
	}
	if !named {
		return
	}
	q := &reader{path: r.path}
	for i, t := range tasks {
		spec := q.mapOf(q.mapOf(q.mapOf(t, "").get("template"), "").get("spec"), "")
		for _, f := range []string{"hostname", "subdomain"} {
			if k, val := spec.field(f); k != nil && !yamlpos.IsNull(val) {
				r.lossyf(k, "Pod "+f+" with Volcano's plugins", "spec.tasks[%d].template.spec.%s changes the host names Volcano's plugins write (<hostname>.<subdomain>); jobshift's tasks answer to <job>-<task>-<index>.<job> only. Remove it, or -lossy to use jobshift's names.", i, f)
			}
		}
	}
}
