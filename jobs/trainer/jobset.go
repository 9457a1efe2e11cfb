package trainer

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// readJobSet reads the runtime's JobSet template spec
// (sigs.k8s.io/jobset api/jobset/v1alpha2/jobset_types.go, the version
// Trainer v2.3.0 vendors).
func (rt *runtime) readJobSet(m *mapping, at kv) {
	f := rt.f
	names := map[string]bool{}
	rf := m.field("replicatedJobs")
	for i, n := range f.seq(rf.val, "spec.template.spec.replicatedJobs") {
		rj := f.readRJob(n, fmt.Sprintf("replicatedJobs[%d]", i))
		if rj == nil {
			continue
		}
		if names[rj.name] {
			f.errorf(rj.nameNode, "Replicated job given twice", "Two replicated jobs are named %q; JobSet rejects duplicate names.", rj.name)
			continue
		}
		names[rj.name] = true
		rt.rjobs = append(rt.rjobs, rj)
	}
	if len(rt.rjobs) == 0 {
		f.errorf(orNode(rf.key, at.key), "No replicated jobs", "The runtime's template.spec.replicatedJobs is empty; a runtime needs at least the trainer job (name node).")
	}
	for _, rj := range rt.rjobs {
		for _, d := range rj.dependsOn {
			if !names[d.Role] || d.Role == rj.name {
				f.c.Errorf(d.Pos, "Unknown dependency", "dependsOn names %q, which is not another replicated job of this runtime; JobSet rejects it.", d.Role)
			}
		}
	}
	rt.readSuccess(m.field("successPolicy"), names)
	if e := m.field("failurePolicy"); e.key != nil {
		fp := f.mapOf(e.val, "failurePolicy")
		if v := fp.get("maxRestarts"); v != nil {
			if c, ok := f.count(v, "failurePolicy.maxRestarts", 0); ok {
				rt.maxRestarts, rt.restartsNode = &c, v
			}
		}
		if r := fp.field("rules"); r.key != nil {
			f.warnf(r.key, "failurePolicy.rules ignored", "JobSet failure-policy rules (FailJobSet, RestartJobSetAndIgnoreMaxRestarts by Job failure reason) are not applied; every failure counts against maxRestarts.")
		}
		fp.ignore("restartStrategy")
		fp.warnUnknown()
	}
	if e := m.field("network"); e.key != nil {
		nm := f.mapOf(e.val, "network")
		if v := nm.get("subdomain"); v != nil {
			rt.subdomain, _ = f.str(v, "network.subdomain")
		}
		nm.ignore("enableDNSHostnames", "publishNotReadyAddresses")
		nm.warnUnknown()
	}
	for _, vcp := range f.seq(m.get("volumeClaimPolicies"), "volumeClaimPolicies") {
		for _, tmpl := range yamlSeq(child(vcp, "templates")) {
			if n := scalar(child(tmpl, "metadata", "name")); n != "" {
				rt.claims = append(rt.claims, n)
			}
		}
	}
	for _, k := range []string{"startupPolicy", "coordinator", "ttlSecondsAfterFinished", "suspend", "managedBy"} {
		m.ignore(k)
	}
	m.warnUnknown()
}

func orNode(ns ...*yaml.Node) *yaml.Node {
	for _, n := range ns {
		if n != nil {
			return n
		}
	}
	return nil
}

// readSuccess reads successPolicy (operator All|Any, default All;
// targetReplicatedJobs, empty = every replicated job).
func (rt *runtime) readSuccess(e kv, names map[string]bool) {
	if e.key == nil {
		return
	}
	f := rt.f
	rt.successNode = e.key
	m := f.mapOf(e.val, "successPolicy")
	if v := m.get("operator"); v != nil {
		op, _ := f.str(v, "successPolicy.operator")
		switch op {
		case "All", "":
		case "Any":
			rt.successAny = true
		default:
			f.errorf(v, "Invalid successPolicy operator", "successPolicy.operator %q must be All or Any.", op)
		}
	}
	for _, n := range f.seq(m.get("targetReplicatedJobs"), "successPolicy.targetReplicatedJobs") {
		s, ok := f.str(n, "successPolicy.targetReplicatedJobs[]")
		if ok && !names[s] {
			f.errorf(n, "Unknown success target", "successPolicy names %q, which is not a replicated job of the runtime.", s)
		}
		rt.successTargets = append(rt.successTargets, s)
	}
	m.warnUnknown()
}

// readRJob reads one replicated job: name, replicas, dependsOn and the
// batch Job template (parallelism, backoffLimit, the pod template).
func (f *file) readRJob(n *yaml.Node, where string) *rjob {
	m := f.mapOf(n, where)
	rj := &rjob{node: n, replicas: 1, parallelism: 1}
	rj.nameNode = m.get("name")
	rj.name, _ = f.str(rj.nameNode, where+".name")
	if rj.name == "" {
		f.errorf(n, "Replicated job without name", "%s has no name; JobSet requires one.", where)
		return nil
	}
	rj.where = "replicatedJobs[" + rj.name + "]"
	if v := m.get("replicas"); v != nil {
		if c, ok := f.count(v, rj.where+".replicas", 0); ok {
			rj.replicas = c
		}
	}
	for i, d := range f.seq(m.get("dependsOn"), rj.where+".dependsOn") {
		w := fmt.Sprintf("%s.dependsOn[%d]", rj.where, i)
		dm := f.mapOf(d, w)
		name, _ := f.str(dm.get("name"), w+".name")
		st, _ := f.str(dm.get("status"), w+".status")
		switch jobs.DependencyStatus(st) {
		case jobs.DependsReady, jobs.DependsComplete:
		default:
			f.errorf(orNode(dm.get("status"), d), "Invalid dependsOn status", "%s.status %q must be Ready or Complete.", w, st)
		}
		dm.warnUnknown()
		rj.dependsOn = append(rj.dependsOn, jobs.Dependency{Role: name, Status: jobs.DependencyStatus(st), Pos: f.pos(d)})
	}
	m.ignore("groupName")
	tm := f.mapOf(m.get("template"), rj.where+".template")
	md := f.mapOf(tm.get("metadata"), rj.where+".template.metadata")
	rj.ancestor = scalar(child(md.get("labels"), ancestorLabel))
	md.ignore("labels", "annotations", "name")
	md.warnUnknown()
	js := f.mapOf(tm.get("spec"), rj.where+".template.spec")
	if v := js.get("parallelism"); v != nil {
		if c, ok := f.count(v, rj.where+".parallelism", 0); ok {
			rj.parallelism = c
		}
	}
	if v := js.get("backoffLimit"); v != nil {
		if c, ok := f.count(v, rj.where+".backoffLimit", 0); ok {
			rj.backoffLimit = &c
		}
	}
	rj.pod = js.get("template")
	if rj.pod == nil {
		f.errorf(n, "Missing pod template", "%s.template.spec.template is missing; a Job needs a pod template.", rj.where)
	}
	js.ignore("completions", "completionMode", "ttlSecondsAfterFinished", "podFailurePolicy", "manualSelector", "selector", "suspend", "podReplacementPolicy", "backoffLimitPerIndex", "maxFailedIndexes", "successPolicy")
	if e := js.field("activeDeadlineSeconds"); e.key != nil {
		f.warnf(e.key, "Job activeDeadlineSeconds ignored", "A replicated Job's own activeDeadlineSeconds is not applied; set the TrainJob's spec.activeDeadlineSeconds.")
	}
	js.warnUnknown()
	tm.warnUnknown()
	m.warnUnknown()
	return rj
}
