package trainer

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// trainJob is a TrainJob document as read
// (pkg/apis/trainer/v1alpha1/trainjob_types.go @v2.0.0 … @v2.3.0).
type trainJob struct {
	f        *file
	api      string
	name     string
	nameNode *yaml.Node
	// namespace is metadata.namespace: the pods' ("" = Kubernetes'
	// default), which a fieldRef may read.
	namespace string
	refName   string
	refKind   string
	refNode   *yaml.Node

	trainer     *mapping // spec.trainer (an empty mapping when absent)
	trainerNode *yaml.Node
	initializer *mapping
	overrides   []kv // podSpecOverrides (v2.0), podTemplateOverrides (v2.1), runtimePatches (v2.2+)
	deadline    *int64
	deadlineAt  *yaml.Node
}

var dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// readTrainJob reads the TrainJob envelope and spec; the trainer and
// initializer parts are applied to the runtime by build.
func (f *file) readTrainJob(obj *yaml.Node) *trainJob {
	tj := &trainJob{f: f, refKind: KindClusterRuntime}
	m := f.mapOf(obj, "TrainJob")
	m.ignore("kind", "status")
	tj.api, _ = f.str(m.get("apiVersion"), "apiVersion")
	if tj.api != "trainer.kubeflow.org/v1alpha1" {
		f.warnf(orNode(m.get("apiVersion"), obj), "Unknown TrainJob apiVersion", "apiVersion %q is not trainer.kubeflow.org/v1alpha1, the only version Trainer v2.0 … v2.3 serves; the spec is read as v1alpha1.", tj.api)
	}
	md := f.mapOf(m.get("metadata"), "metadata")
	tj.nameNode = md.get("name")
	tj.name, _ = f.str(tj.nameNode, "metadata.name")
	tj.namespace, _ = f.str(md.get("namespace"), "metadata.namespace")
	f.pod.Namespace(tj.namespace) // for trainer.env and the overrides
	md.ignore("labels", "annotations", "uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "finalizers")
	if gen := md.get("generateName"); gen != nil && tj.name == "" {
		g, _ := f.str(gen, "metadata.generateName")
		tj.name, tj.nameNode = strings.TrimRight(g, "-"), gen
		f.warnf(gen, "generateName used as the job name", "Kubernetes appends 5 random characters to generateName %q; jobshift names the job %q. Set metadata.name to choose the name.", g, tj.name)
	}
	md.warnUnknown()
	// trainjob_types.go @v2.3.0 XValidation: an RFC 1035 label of at most
	// 63 characters (the JobSet and its pod host names derive from it).
	switch {
	case tj.name == "":
		f.errorf(obj, "Missing job name", "metadata.name is required; use a lower-case DNS label such as mnist-train.")
	case len(tj.name) > 63 || !dns1035.MatchString(tj.name):
		f.errorf(tj.nameNode, "Invalid TrainJob name", "%q: metadata.name must match RFC 1035 DNS label format (lower-case letters, digits and '-', starting with a letter) and be no more than 63 characters; Trainer rejects it.", tj.name)
	}
	spec := f.mapOf(m.get("spec"), "spec")
	tj.readRef(spec.field("runtimeRef"), obj)
	tf := spec.field("trainer")
	tj.trainer, tj.trainerNode = f.mapOf(tf.val, "spec.trainer"), tf.key
	tj.initializer = f.mapOf(spec.get("initializer"), "spec.initializer")
	for _, k := range []string{"podSpecOverrides", "podTemplateOverrides", "runtimePatches"} {
		if e := spec.field(k); e.key != nil {
			tj.overrides = append(tj.overrides, e)
		}
	}
	tj.readRunPolicy(spec)
	spec.ignore("labels", "annotations") // v2.0/v2.1: labels for the JobSet, no effect off Kubernetes
	spec.warnUnknown()
	m.warnUnknown()
	return tj
}

// readRef reads runtimeRef: name required, apiGroup trainer.kubeflow.org,
// kind TrainingRuntime or ClusterTrainingRuntime (default
// ClusterTrainingRuntime, the kubebuilder default in trainjob_types.go
// @v2.0.0 … @v2.3.0).
func (tj *trainJob) readRef(e kv, obj *yaml.Node) {
	f := tj.f
	tj.refNode = orNode(e.key, obj)
	rm := f.mapOf(e.val, "spec.runtimeRef")
	if n := rm.get("name"); n != nil {
		tj.refName, _ = f.str(n, "runtimeRef.name")
		tj.refNode = n
	}
	if tj.refName == "" {
		f.errorf(tj.refNode, "Missing runtimeRef", "spec.runtimeRef.name must name the TrainingRuntime or ClusterTrainingRuntime the job runs on (for example torch-distributed).")
	}
	if n := rm.get("apiGroup"); n != nil {
		if g, _ := f.str(n, "runtimeRef.apiGroup"); g != "trainer.kubeflow.org" {
			f.errorf(n, "Unsupported runtimeRef.apiGroup", "runtimeRef.apiGroup %q: Trainer only runs runtimes of trainer.kubeflow.org.", g)
		}
	}
	if n := rm.get("kind"); n != nil {
		k, _ := f.str(n, "runtimeRef.kind")
		switch k {
		case KindRuntime, KindClusterRuntime:
			tj.refKind = k
		default:
			f.errorf(n, "Unsupported runtimeRef.kind", "runtimeRef.kind %q must be TrainingRuntime or ClusterTrainingRuntime.", k)
		}
	}
	rm.warnUnknown()
}

// readRunPolicy reads activeDeadlineSeconds (v2.2+, Minimum=1), suspend
// and managedBy (its CEL enum, trainjob_types.go @v2.3.0).
func (tj *trainJob) readRunPolicy(spec *mapping) {
	f := tj.f
	if n := spec.get("activeDeadlineSeconds"); n != nil {
		if v, ok := f.integer(n, "spec.activeDeadlineSeconds"); ok {
			if v < 1 {
				f.errorf(n, "Invalid activeDeadlineSeconds", "spec.activeDeadlineSeconds must be at least 1 (trainjob_types.go Minimum=1), not %d.", v)
			} else {
				tj.deadline, tj.deadlineAt = &v, n
			}
		}
	}
	if n := spec.get("suspend"); n != nil {
		if v, ok := f.boolean(n, "spec.suspend"); ok && v {
			f.warnf(n, "suspend ignored", "The TrainJob is suspended (suspend: true); on Kubernetes it would not start until resumed. jobshift starts it when you run it.")
		}
	}
	if n := spec.get("managedBy"); n != nil {
		v, _ := f.str(n, "spec.managedBy")
		switch v {
		case "trainer.kubeflow.org/trainjob-controller":
		case "kueue.x-k8s.io/multikueue":
			f.warnf(n, "managedBy ignored", "managedBy %q hands the TrainJob to MultiKueue, which dispatches it to a worker cluster; jobshift runs it itself.", v)
		default:
			f.errorf(n, "Invalid managedBy", "managedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set, not %q.", v)
		}
	}
}
