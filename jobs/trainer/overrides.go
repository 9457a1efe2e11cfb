package trainer

import (
	"fmt"
	"regexp"

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
	m.ignore("time")
	if n := m.get("manager"); n != nil {
		if v, _ := f.str(n, where+".manager"); !domainPrefixedPath.MatchString(v) {
			f.errorf(n, "Invalid runtime patch manager", "%s.manager %q must be a domain-prefixed path such as example.com/my-controller; Trainer rejects it.", where, v)
		}
	}
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
		envF := cm.field("env")
		if envF.val != nil {
			f.pod.Env(tmp, envF.val, w+".env", kubeflow.PodOptions{})
		}
		names, main := b.containerNames(role.Name)
		// jobset.go Validate @v2.3.0 (podTemplateOverrides @v2.1.0 alike):
		// "must not have container that doesn't exist in the runtime job",
		// "must not have envs for the dataset-initializer,
		// model-initializer, node containers".
		switch {
		case !names[name]:
			f.errorf(orNode(cm.get("name"), c), "Unknown container", "The runtime job %s has no container %q; Trainer rejects the override (\"must not have container that doesn't exist in the runtime job\").", role.Name, name)
		case envF.val != nil && (name == nodeName || name == datasetInitializer || name == modelInitializer):
			f.errorf(envF.key, "Override sets env of the "+name+" container", "Trainer rejects env overrides for the dataset-initializer, model-initializer and node containers; set the trainer's variables in spec.trainer.env and an initializer's in spec.initializer.")
		case name != main:
			f.warnf(c, "Override of another container", "%s names the container %q; jobshift runs the role's main container (%q) only, so this override has no effect.", w, name, main)
		default:
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

// containerNames are the container and init-container names of the runtime
// job of role, and the name of the one that is the task.
func (b *builder) containerNames(role string) (map[string]bool, string) {
	names, main := map[string]bool{}, ""
	for _, rj := range b.rt.rjobs {
		if rj.name != role {
			continue
		}
		want := mainContainer(rj)
		for _, c := range yamlSeq(child(rj.pod, "spec", "containers")) {
			n := scalar(child(c, "name"))
			names[n] = true
			if main == "" && (want == "" || n == want) {
				main = n
			}
		}
		for _, c := range yamlSeq(child(rj.pod, "spec", "initContainers")) {
			names[scalar(child(c, "name"))] = true
		}
	}
	return names, main
}

// domainPrefixedPath is validation.IsDomainPrefixedPath (apimachinery),
// what jobset.go Validate @v2.3.0 requires of runtimePatches[].manager:
// a DNS-1123 subdomain, "/", a non-empty path.
var domainPrefixedPath = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$`)
