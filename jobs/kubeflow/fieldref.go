package kubeflow

import (
	"slices"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// Downward-API field paths an env fieldRef may name: the kubelet's list
// (kubernetes/kubernetes pkg/apis/core/validation/validation.go
// validEnvDownwardAPIFieldPathExpressions, plus metadata.labels['k'] and
// metadata.annotations['k']; values as pkg/fieldpath/fieldpath.go
// ExtractFieldPathAsString gives them, @v1.31.0; documented at
// https://kubernetes.io/docs/concepts/workloads/pods/downward-api/).
//
// jobs.FieldPodName, FieldPodIP and FieldPodIPs differ from task to task
// and reach it through the environment contract (translate/contract
// fieldref.go): the pod name is the task's platform host name, the pod IP
// its address. So do jobs.FieldNodeName, FieldHostIP and FieldHostIPs, the
// node the task runs on, known only once it runs: its name and address as
// the target gives them at run time (the kubelet's
// podFieldSelectorRuntimeValue, pkg/kubelet/kubelet_pods.go @v1.31.0).
// metadata.namespace (the job's: its pods are made in it, "default"
// when the file names none) and a label or annotation the pod template
// sets are the same for every task: the reader writes them as values. The
// others have no counterpart jobshift can give honestly:
//   - metadata.uid: Kubernetes makes a fresh UID per pod; any value
//     jobshift made up would look real to a program that keys state by it;
//   - spec.serviceAccountName: service accounts, and the token a program
//     reads beside the name, do not exist on the target;
//   - a label or annotation the template does not set: the operator's own
//     (volcano.sh/task-index, training.kubeflow.org/replica-index) differ
//     from pod to pod, and any other came from a controller jobshift does
//     not know.
var unsupportedFieldPaths = map[string]string{
	"metadata.uid":            "Kubernetes gives every pod a fresh UID; a made-up one would look real",
	"spec.serviceAccountName": "service accounts do not exist on the target",
}

// podMeta is a pod template's metadata as the downward API reads it.
type podMeta struct{ labels, annotations map[string]string }

// podMetadata reads a pod template's labels and annotations (string
// values; anything else Kubernetes rejects, and is left out here).
func (r *reader) podMetadata(n *yaml.Node) podMeta {
	q := r.silent()
	md := q.mapOf(n, "")
	read := func(key string) map[string]string {
		out := map[string]string{}
		m := q.mapOf(md.get(key), "")
		for _, f := range m.fields {
			if v, ok := q.str(f.val, ""); ok {
				out[f.key.Value] = v
			}
		}
		return out
	}
	return podMeta{labels: read("labels"), annotations: read("annotations")}
}

// platformKey: a label or annotation key the operators set on every pod
// themselves, per pod (Volcano job_controller_util.go createJobPod
// @v1.16.0-alpha.1; the Kubeflow operators' replica labels, legacy ones
// unprefixed; JobSet and Kubernetes' own).
func platformKey(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return slices.Contains([]string{"group-name", "job-name", "replica-type", "replica-index", "job-role", "controller-uid", "tf-replica-type", "tf-replica-index", "pytorch-replica-type", "pytorch-replica-index"}, k)
	}
	for _, owner := range []string{"volcano.sh", "kubeflow.org", "k8s.io", "kubernetes.io"} {
		if prefix == owner || strings.HasSuffix(prefix, "."+owner) {
			return true
		}
	}
	return false
}

// subscript splits metadata.labels['k'] into its path and key
// (pkg/fieldpath SplitMaybeSubscriptedPath).
func subscript(path string) (string, string, bool) {
	if !strings.HasSuffix(path, "']") {
		return path, "", false
	}
	p, k, ok := strings.Cut(strings.TrimSuffix(path, "']"), "['")
	return p, k, ok
}

// fieldRef reads env[].valueFrom.fieldRef of variable name (fr the
// fieldRef mapping) into a jobs.EnvVar with FieldPath set, or with the
// value where every task has the same. ok is false when the path is not
// one jobshift can give; that is reported at the path.
func (r *reader) fieldRef(name string, f field, fl *flavour) (jobs.EnvVar, bool) {
	w := "env " + name + " from fieldRef"
	m := r.mapOf(f.val, w)
	pathNode := m.get("fieldPath")
	path, _ := r.str(pathNode, w+".fieldPath")
	m.ignore("apiVersion")
	m.warnUnknown()
	at := pathNode
	if at == nil {
		at = f.key
	}
	switch {
	case path == "":
		r.errorf(at, "Missing fieldPath", "The env variable %s has a fieldRef without fieldPath; Kubernetes rejects it.", name)
		return jobs.EnvVar{}, false
	case path == jobs.FieldPodName, path == jobs.FieldPodIP, path == jobs.FieldPodIPs,
		path == jobs.FieldNodeName, path == jobs.FieldHostIP, path == jobs.FieldHostIPs:
		if fl == initFlavour {
			r.lossyf(at, "Variable from the pod dropped", "The env variable %s of an init container takes %s from the pod; jobshift gives the pod's own fields to the main task only. Set a plain value instead.", name, path)
			return jobs.EnvVar{}, false
		}
		return jobs.EnvVar{Name: name, FieldPath: path}, true
	case path == "metadata.namespace":
		ns := r.namespace
		if ns == "" {
			ns = "default"
		}
		return jobs.EnvVar{Name: name, Value: ns}, true
	}
	if p, key, ok := subscript(path); ok && (p == "metadata.labels" || p == "metadata.annotations") {
		return r.podMetaRef(name, at, p, key)
	}
	if why, ok := unsupportedFieldPaths[path]; ok {
		r.lossyf(at, "Variable from the pod dropped", "The env variable %s takes %s from the pod, which jobshift cannot give (%s); the task would run without it. Set a plain value instead.", name, path, why)
		return jobs.EnvVar{}, false
	}
	r.errorf(at, "Unknown fieldPath", "The env variable %s takes %q from the pod, which is not a downward-API field; Kubernetes accepts metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP and status.podIPs.", name, path)
	return jobs.EnvVar{}, false
}

// podMetaRef is the value of a label or annotation (p) key of the pod
// template: the template's own, never one the platform sets per pod.
func (r *reader) podMetaRef(name string, at *yaml.Node, p, key string) (jobs.EnvVar, bool) {
	kind, set := "label", r.pod.labels
	if p == "metadata.annotations" {
		kind, set = "annotation", r.pod.annotations
	}
	v, ok := set[key]
	switch {
	case platformKey(key):
		r.lossyf(at, "Variable from the pod dropped", "The env variable %s takes the %s %q, which the platform sets on each pod itself; jobshift cannot give it and the task would run without it. Set a plain value instead.", name, kind, key)
	case !ok:
		r.lossyf(at, "Variable from the pod dropped", "The env variable %s takes the %s %q, which the pod template does not set (a controller jobshift does not know would); the task would run without it. Set the %s in the template's metadata, or a plain value.", name, kind, key, kind)
	default:
		return jobs.EnvVar{Name: name, Value: v}, true
	}
	return jobs.EnvVar{}, false
}
