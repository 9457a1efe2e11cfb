package contract

import (
	"sort"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// tfKnown are the replica types the operator counts in isDistributed.
var tfKnown = map[string]bool{"chief": true, "evaluator": true, "master": true, "ps": true, "worker": true}

// tfType is the TF_CONFIG key of a role: the lower-cased Kubeflow replica
// type, or, for roles of other platforms, the lower-cased role name.
func tfType(r *jobs.Role) string {
	if r.ReplicaType != "" {
		return strings.ToLower(r.ReplicaType)
	}
	return strings.ToLower(r.Name)
}

// tfDistributed is the operator's isDistributed (tensorflow/util.go): the
// replicas of the five known types do not add up to exactly 1. Roles of
// other platforms (no replica type) count with all their instances.
func tfDistributed(j *jobs.Job) bool {
	n := 0
	for _, r := range j.Roles {
		if r.ReplicaType == "" || tfKnown[tfType(r)] {
			n += r.Instances
		}
	}
	return n != 1
}

func checkTF(j *jobs.Job, opts Options, bad func(jobs.Pos, string, string, ...any)) {
	seen := map[string]string{}
	for _, r := range j.Roles {
		t := tfType(r)
		if o, dup := seen[t]; dup {
			bad(r.Pos, "Roles share a TF_CONFIG type", "Roles %q and %q both become %q in TF_CONFIG; rename one.", o, r.Name, t)
		}
		seen[t] = r.Name
		if tfHasConfig(j) && tfPort(r) == nil && r.Instances > 0 {
			bad(r.Pos, "Role has no port for TF_CONFIG", "Role %q has no port; TF_CONFIG lists host:port of every task. Declare a port (tfjob-port for Kubeflow, a portList/ports entry for OpenPAI).", r.Name)
		}
	}
}

// tfPreV1 reports whether the job is a TFJob of an operator before v1.0.1
// (v1alpha1, v1alpha2, v1beta1, v1beta2), whose TF_CONFIG differed from
// v1.9's in two ways (tfHasConfig, tfListsEvaluator).
func tfPreV1(j *jobs.Job) bool {
	g := j.KubeflowGen()
	return j.Source.Format == jobs.FormatTFJob && (g == jobs.KubeflowGenV1Alpha1 || g == jobs.KubeflowGenPreV1)
}

// tfHasConfig reports whether tasks get TF_CONFIG. isDistributed (no
// TF_CONFIG for a job of exactly one replica) arrived in v1.0.1 (PR #1080,
// pkg/controller.v1/tensorflow/util.go); before it every pod got one
// (setClusterSpec in pkg/controller.v2/tensorflow/pod.go @v0.3.0 and
// pkg/controller.v1beta2/tensorflow/pod.go @v0.5.3; CreatePodWithIndex in
// pkg/trainer/replicas.go @v0.1.0).
func tfHasConfig(j *jobs.Job) bool { return tfPreV1(j) || tfDistributed(j) }

// tfListsEvaluator reports whether evaluators are in the cluster: not from
// PR #650 (v1alpha2, "evaluator is not part of training cluster",
// genClusterSpec in tensorflow.go @v0.3.0 and @v0.5.3) until commit
// c18fb32ff (PR #1146, v1.0.1). v1alpha1 had no Evaluator type.
func (b *builder) tfListsEvaluator() bool {
	return !b.opts.TFLegacyEvaluator && !tfPreV1(b.job)
}

// tf is TFJob TF_CONFIG (spec/kubeflow.md §2): Go encoding/json of
// {cluster, task, environment}, cluster keys sorted; the sparse form for
// enableDynamicWorker. The generation rules are in tfHasConfig and
// tfListsEvaluator.
func (b *builder) tf() {
	j := b.job
	if !tfHasConfig(j) {
		return
	}
	me := tfType(j.Roles[b.self])
	if j.Completion.EnableDynamicWorker {
		b.set("TF_CONFIG", b.tfSparse(me))
		return
	}
	var roles []int
	for k, r := range j.Roles {
		if !b.tfListsEvaluator() && tfType(r) == "evaluator" {
			continue
		}
		roles = append(roles, k)
	}
	b.set("TF_CONFIG", cat(lit(`{"cluster":`), b.tfCluster(roles), lit(`,"task":{"type":`+jsonString(me)+`,"index":`), index(0), lit(`},"environment":"cloud"}`)))
}

// tfCluster is the JSON object type → [host:port of every task], keys in
// Go's sorted map order.
func (b *builder) tfCluster(roles []int) expr { return b.clusterOf(roles, tfPort) }

// clusterOf is tfCluster with each role's port chosen by portOf.
func (b *builder) clusterOf(roles []int, portOf func(*jobs.Role) *slot) expr {
	sort.SliceStable(roles, func(x, y int) bool { return tfType(b.job.Roles[roles[x]]) < tfType(b.job.Roles[roles[y]]) })
	es := []expr{lit("{")}
	for n, k := range roles {
		if n > 0 {
			es = append(es, lit(","))
		}
		es = append(es, lit(jsonString(tfType(b.job.Roles[k]))+":"), b.hostsOf(k, portOf))
	}
	return cat(append(es, lit("}"))...)
}

// tfHosts is the JSON list of role k's task addresses.
func (b *builder) tfHosts(k int) expr { return b.hostsOf(k, tfPort) }

func (b *builder) hostsOf(k int, portOf func(*jobs.Role) *slot) expr {
	r := b.job.Roles[k]
	if r.Instances == 0 {
		return lit("[]")
	}
	s := portOf(r)
	return cat(lit("["), join(r.Instances, ",", func(i int) expr { return host(k, i, s.label, s.n) }), lit("]"))
}

// tfSparse is SparseTFConfig (convertClusterSpecToSparseClusterSpec): a
// worker sees itself and every ps, a ps only itself, other types nothing;
// "ps" is null when the job has no PS (a nil Go slice).
func (b *builder) tfSparse(me string) expr {
	k := b.self
	task := cat(lit(`,"task":{"type":`+jsonString(me)+`,"index":`), index(0), lit(`}}`))
	switch me {
	case "worker":
		s := tfPort(b.job.Roles[k])
		psList := lit("null")
		for pk, r := range b.job.Roles {
			if tfType(r) == "ps" {
				psList = b.tfHosts(pk)
			}
		}
		return cat(lit(`{"cluster":{"worker":{"`), index(0), lit(`":`), host(k, self, s.label, s.n), lit(`},"ps":`), psList, lit(`}`), task)
	case "ps":
		s := tfPort(b.job.Roles[k])
		return cat(lit(`{"cluster":{"worker":{},"ps":[`), host(k, self, s.label, s.n), lit(`]}`), task)
	}
	return cat(lit(`{"cluster":{"worker":{},"ps":[]}`), task)
}
