package trainer

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"go.yaml.in/yaml/v3"
)

// overrides applies the per-release pod overrides to their target roles:
// podSpecOverrides (v2.0: targetJobs + the pod-spec fields inline),
// podTemplateOverrides (v2.1: targetJobs, metadata, spec) and
// runtimePatches (v2.2+: trainingRuntimeSpec.template.spec.replicatedJobs[]
// with the pod spec at template.spec.template.spec), all
// pkg/apis/trainer/v1alpha1/trainjob_types.go of their release. What a
// pod spec can carry here: container env (upserted) and volumes with their
// mounts; initContainers run code (error unless -lossy); placement and
// identity fields are warnings.
func (b *builder) overrides() {
	f := b.tj.f
	for _, o := range b.tj.overrides {
		kind := o.key.Value
		for i, item := range f.seq(o.val, "spec."+kind) {
			where := fmt.Sprintf("spec.%s[%d]", kind, i)
			m := f.mapOf(item, where)
			switch kind {
			case "runtimePatches":
				b.runtimePatch(m, where)
			case "podSpecOverrides":
				for _, r := range b.targets(m, where) {
					b.podPatch(r, m, where)
				}
			default:
				ps := f.mapOf(m.get("spec"), where+".spec")
				m.ignore("metadata")
				for _, r := range b.targets(m, where) {
					b.podPatch(r, ps, where+".spec")
				}
				ps.warnUnknown()
			}
			m.warnUnknown()
		}
	}
}

// targets are the roles of targetJobs[].name.
func (b *builder) targets(m *mapping, where string) []*jobs.Role {
	f := b.tj.f
	var out []*jobs.Role
	for i, t := range f.seq(m.get("targetJobs"), where+".targetJobs") {
		tm := f.mapOf(t, fmt.Sprintf("%s.targetJobs[%d]", where, i))
		nn := tm.get("name")
		name, _ := f.str(nn, "targetJobs[].name")
		tm.warnUnknown()
		if r := b.job.Role(name); r != nil {
			out = append(out, r)
		} else {
			f.errorf(orNode(nn, t), "Unknown target job", "%q is not a replicated job of the runtime %s; Trainer rejects the override.", name, b.rt.name)
		}
	}
	return out
}

func (b *builder) runtimePatch(m *mapping, where string) {
	f := b.tj.f
	m.ignore("manager", "time")
	rs := f.mapOf(m.get("trainingRuntimeSpec"), where+".trainingRuntimeSpec")
	tm := f.mapOf(rs.get("template"), where+".trainingRuntimeSpec.template")
	tm.ignore("metadata")
	js := f.mapOf(tm.get("spec"), where+".template.spec")
	for i, rj := range f.seq(js.get("replicatedJobs"), where+".replicatedJobs") {
		w := fmt.Sprintf("%s.replicatedJobs[%d]", where, i)
		rm := f.mapOf(rj, w)
		nn := rm.get("name")
		name, _ := f.str(nn, w+".name")
		r := b.job.Role(name)
		if r == nil {
			f.errorf(orNode(nn, rj), "Unknown replicated job", "%q is not a replicated job of the runtime %s.", name, b.rt.name)
		}
		pod := child(rm.get("template"), "spec", "template")
		ps := f.mapOf(child(pod, "spec"), w+".template.spec.template.spec")
		if r != nil {
			b.podPatch(r, ps, w+".template.spec.template.spec")
		}
		ps.warnUnknown()
		rm.warnUnknown()
	}
	js.warnUnknown()
	tm.warnUnknown()
	rs.warnUnknown()
}

// podPatch applies one pod-spec patch to role.
func (b *builder) podPatch(role *jobs.Role, ps *mapping, where string) {
	f := b.tj.f
	var mounts []*yaml.Node
	for i, c := range f.seq(ps.get("containers"), where+".containers") {
		w := fmt.Sprintf("%s.containers[%d]", where, i)
		cm := f.mapOf(c, w)
		name, _ := f.str(cm.get("name"), w+".name")
		tmp := &jobs.Role{}
		if n := cm.get("env"); n != nil {
			f.pod.Env(tmp, n, w+".env", kubeflow.PodOptions{})
		}
		if name != nodeName && name != role.Name && name != role.ReplicaType {
			f.warnf(c, "Override of another container", "%s names the container %q; jobshift runs the role's main container only, so this override has no effect.", w, name)
		} else {
			upsertEnv(role, tmp.Env)
			mounts = append(mounts, f.seq(cm.get("volumeMounts"), w+".volumeMounts")...)
		}
		if e := cm.field("securityContext"); e.key != nil {
			f.warnf(e.key, "securityContext ignored", "The task runs as the user and with the privileges the target's driver gives it.")
		}
		cm.ignore("resources")
		cm.warnUnknown()
	}
	texts := append(append([]string{}, role.Command.Command...), role.Command.Args...)
	b.tj.f.pod.Volumes(role, f.seq(ps.get("volumes"), where+".volumes"), mounts, where, texts)
	for _, ic := range f.seq(ps.get("initContainers"), where+".initContainers") {
		f.lossyf(ic, "Init container override dropped", "An init container override runs or changes code before the task; jobshift cannot apply it.")
	}
	for _, k := range []string{"nodeSelector", "affinity", "tolerations", "schedulingGates", "serviceAccountName", "imagePullSecrets", "securityContext", "terminationGracePeriodSeconds"} {
		if e := ps.field(k); e.key != nil {
			f.warnf(e.key, "Pod setting ignored: "+k, "%s.%s only matters to Kubernetes scheduling or identity; jobshift ignores it.", where, k)
		}
	}
	ps.ignore("targetJobs")
}
