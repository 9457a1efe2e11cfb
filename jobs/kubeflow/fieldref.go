package kubeflow

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// Downward-API field paths an env fieldRef may name: the kubelet's list
// (kubernetes/kubernetes pkg/apis/core/validation/validation.go
// validEnvDownwardAPIFieldPathExpressions, plus metadata.labels['k'] and
// metadata.annotations['k']; documented at
// https://kubernetes.io/docs/concepts/workloads/pods/downward-api/).
//
// jobs.FieldPodName, FieldPodIP and FieldPodIPs differ from task to task
// and reach it through the environment contract (translate/contract
// fieldref.go): the pod name is the task's platform host name, the pod IP
// its address. The others have no counterpart jobshift can give honestly:
//   - metadata.uid: Kubernetes makes a fresh UID per pod; any value
//     jobshift made up would look real to a program that keys state by it;
//   - status.hostIP(s), spec.nodeName: the node is not the task's address
//     on every target (a Nomad bridge network, a container);
//   - metadata.namespace, spec.serviceAccountName, labels, annotations:
//     not kept by the readers yet.
var unsupportedFieldPaths = map[string]string{
	"metadata.namespace":      "the job's namespace is not kept",
	"metadata.uid":            "Kubernetes gives every pod a fresh UID; a made-up one would look real",
	"spec.nodeName":           "the node is not known before the task runs",
	"spec.serviceAccountName": "service accounts do not exist on the target",
	"status.hostIP":           "the node's address is not the task's on every target",
	"status.hostIPs":          "the node's address is not the task's on every target",
}

// fieldRef reads env[].valueFrom.fieldRef of variable name (fr the
// fieldRef mapping) into a jobs.EnvVar with FieldPath set. ok is false when
// the path is not one jobshift can give; that is reported at the path.
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
	case fl == initFlavour:
		r.lossyf(at, "Variable from the pod dropped", "The env variable %s of an init container takes %s from the pod; jobshift gives the pod's fields to the main task only. Set a plain value instead.", name, path)
		return jobs.EnvVar{}, false
	case path == jobs.FieldPodName, path == jobs.FieldPodIP, path == jobs.FieldPodIPs:
		return jobs.EnvVar{Name: name, FieldPath: path}, true
	}
	if why, ok := unsupportedFieldPaths[path]; ok || strings.HasPrefix(path, "metadata.labels[") || strings.HasPrefix(path, "metadata.annotations[") {
		if !ok {
			why = "the pod's labels and annotations are not kept"
		}
		r.lossyf(at, "Variable from the pod dropped", "The env variable %s takes %s from the pod, which jobshift cannot give (%s); the task would run without it. Set a plain value instead.", name, path, why)
		return jobs.EnvVar{}, false
	}
	r.errorf(at, "Unknown fieldPath", "The env variable %s takes %q from the pod, which is not a downward-API field; Kubernetes accepts metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP and status.podIPs.", name, path)
	return jobs.EnvVar{}, false
}
