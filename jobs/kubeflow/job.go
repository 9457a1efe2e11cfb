package kubeflow

import (
	"regexp"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// readJob reads the common envelope (apiVersion, metadata) and hands the
// spec to the TFJob or PyTorchJob reader.
func (r *reader) readJob(m *mapping, format jobs.Format, kind string, kindNode *yaml.Node) *jobs.Job {
	apiNode := m.get("apiVersion")
	api, _ := r.str(apiNode, "apiVersion")
	if api == "" {
		r.errorf(kindNode, "Missing apiVersion", "A %s needs an apiVersion (for example kubeflow.org/v1); Kubernetes rejects objects without one.", kind)
	}
	job := &jobs.Job{
		Source: jobs.Source{Format: format, Version: api, Kind: kind, Path: r.path},
	}
	r.metadata(m.get("metadata"), job)
	r.namespace, _ = r.silent().str(r.silent().mapOf(m.get("metadata"), "").get("namespace"), "")
	m.ignore("kind", "status")
	spec := r.mapOf(m.get("spec"), "spec")
	if n := deref(spec.node); n == nil || n.Kind != yaml.MappingNode {
		r.errorf(kindNode, "Missing spec", "The %s has no spec; add spec with the replica specs.", kind)
	}
	switch format {
	case jobs.FormatTFJob:
		r.readTFJob(job, spec, apiNode)
	case jobs.FormatPyTorchJob:
		r.readPyTorchJob(job, spec, apiNode)
	case jobs.FormatMPIJob:
		ns, _ := r.silent().str(r.silent().mapOf(m.get("metadata"), "").get("namespace"), "")
		r.readMPIJob(job, spec, apiNode, ns)
	case jobs.FormatXGBoostJob, jobs.FormatPaddleJob, jobs.FormatJAXJob, jobs.FormatMXJob:
		r.readOtherKind(job, spec, apiNode)
	}
	m.warnUnknown()
	return job
}

var (
	// DNS-1123 subdomain: what the API server requires of metadata.name.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// DNS-1035 label: what the v1.9 TFJob webhook requires of the job name.
	dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	placeholder  = regexp.MustCompile(`\$\([A-Za-z_][A-Za-z0-9_]*\)|\$\{[^}]*\}|\{\{[^}]*\}\}|<[^<>]+>`)
)

// metadata reads the job name. generateName is accepted as the name (the
// random suffix Kubernetes would append is dropped, with a warning).
func (r *reader) metadata(n *yaml.Node, job *jobs.Job) {
	md := r.mapOf(n, "metadata")
	md.ignore("namespace", "labels", "annotations", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink", "managedFields", "ownerReferences", "finalizers", "clusterName")
	nameNode := md.get("name")
	name, _ := r.str(nameNode, "metadata.name")
	if name == "" {
		gen := md.get("generateName")
		g, _ := r.str(gen, "metadata.generateName")
		if g != "" {
			r.warnf(gen, "generateName used as the job name", "Kubernetes appends 5 random characters to generateName %q; jobshift names the job %q. Set metadata.name to choose the name.", g, strings.TrimRight(g, "-"))
			name, nameNode = strings.TrimRight(g, "-"), gen
		}
	} else {
		md.ignore("generateName")
	}
	job.Name, job.NamePos = name, r.pos(nameNode)
	switch {
	case name == "" && n == nil:
		r.errorf(nil, "Missing metadata", "The job has no metadata; add metadata.name (a lower-case DNS label such as mnist-train).")
	case name == "":
		r.errorf(n, "Missing job name", "metadata.name (or generateName) is required; Kubernetes rejects the job without it. Use a lower-case DNS label such as mnist-train.")
	case placeholder.MatchString(name):
		r.errorf(nameNode, "Unrendered placeholder in the job name", "The job name %q contains a template placeholder; render the template (kustomize, helm, envsubst) first and validate the result.", name)
	case len(name) > 253 || !dns1123Subdomain.MatchString(name):
		r.errorf(nameNode, "Invalid job name", "%q is not a valid Kubernetes name (lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters).", name)
	case len(name) > 63 || !dns1035Label.MatchString(name):
		r.dns1035(nameNode, job, name)
	}
	md.warnUnknown()
}

// hasLimits reports whether the job's apiVersion has activeDeadlineSeconds
// and backoffLimit, and warns when it does not. They arrived with v1beta2
// in tf-operator v0.5.0 and pytorch-operator v0.5.0 (absent from
// pkg/apis/tensorflow/v1alpha2/types.go @v0.3.0, v1beta1/types.go @v0.4.0,
// pkg/apis/pytorch/{v1alpha2,v1beta1}/types.go @v0.3.0/@v0.4.0); an
// operator of an older apiVersion never enforced them.
func (r *reader) hasLimits(job *jobs.Job, n *yaml.Node, name string) bool {
	switch job.Source.Version {
	case "kubeflow.org/v1alpha1", "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1":
		r.warnf(n, name+" ignored", "%s arrived with kubeflow.org/v1beta2 (operators v0.5); the %s operator did not enforce it, so jobshift does not either. Use apiVersion kubeflow.org/v1 to get it.", name, job.Source.Version)
		return false
	}
	return true
}

// dns1035 judges a job name that is a valid Kubernetes name but not a
// DNS-1035 label. kubeflow.org/v1 operators reject it (NameIsDNS1035Label in
// ValidateV1TFJob, pkg/apis/kubeflow.org/v1/tensorflow_validation.go @v1.6.0,
// and in the v1.9 webhooks pkg/webhooks/{tensorflow,pytorch}): an error,
// -lossy makes it a warning. Earlier operators admitted it (only the API
// server's DNS-1123 rule applied), so it stays a warning there.
func (r *reader) dns1035(nameNode *yaml.Node, job *jobs.Job, name string) {
	const what = "%q is not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter, at most 63 characters)."
	if _, other := otherKinds[job.Source.Format]; other || job.KubeflowGen() == jobs.KubeflowGenV1 {
		r.lossyf(nameNode, "Job name is not a DNS label", what+" The kubeflow.org/v1 operator rejects the job (\"%s name is invalid\"); rename it, for example to %q.", name, job.Source.Kind, suggestName(name))
		return
	}
	r.warnf(nameNode, "Job name is not a DNS label", what+" The %s operator admitted it, but Kubernetes service names derived from it may be invalid; prefer a name such as %q.", name, job.Source.Version, suggestName(name))
}

// suggestName turns a valid Kubernetes name into a DNS-1035 label: dots
// become '-', a leading digit gets a "job-" prefix, at most 63 characters.
func suggestName(name string) string {
	s := strings.ReplaceAll(name, ".", "-")
	if s != "" && (s[0] < 'a' || s[0] > 'z') {
		s = "job-" + s
	}
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.TrimRight(s, "-")
}

// runPolicy reads the run policy. Versions before kubeflow/common (v1alpha2
// … v1 first form) put the fields at the top of spec; the v1 runPolicy
// form nests them. Both spellings are accepted for every version (the
// operator v1.0.1–v1.2 silently dropped top-level cleanPodPolicy,
// kubeflow/trainer#1241); when both are present the nested one wins, with a
// warning. defaultClean is the version's cleanPodPolicy default.
func (r *reader) runPolicy(job *jobs.Job, spec *mapping, defaultClean string) {
	rp := r.mapOf(spec.get("runPolicy"), "spec.runPolicy")
	if rp.node != nil {
		job.Retry.Pos = r.pos(spec.field("runPolicy").key)
	}
	pick := func(name string) *yaml.Node {
		top, nested := spec.field(name), rp.field(name)
		switch {
		case top.val != nil && nested.val != nil:
			r.warnf(top.key, "Run policy field given twice", "spec.%s and spec.runPolicy.%s are both set; spec.runPolicy.%s wins (as in Kubeflow v1.3+). Remove the top-level one.", name, name, name)
			return nested.val
		case nested.val != nil:
			return nested.val
		case top.val != nil && job.Retry.Pos.IsZero():
			job.Retry.Pos = r.pos(top.key)
		}
		return top.val
	}
	job.Retry.CleanPodPolicy = defaultClean
	if n := pick("cleanPodPolicy"); n != nil {
		if v, ok := r.str(n, "cleanPodPolicy"); ok {
			switch v {
			case "All", "Running", "None":
				job.Retry.CleanPodPolicy = v
			default:
				r.errorf(n, "Invalid cleanPodPolicy", "cleanPodPolicy %q is not one of All, Running, None.", v)
			}
		}
	}
	if n := pick("ttlSecondsAfterFinished"); n != nil {
		if v, ok := r.nonNegative(n, "ttlSecondsAfterFinished"); ok {
			t := int(v)
			job.Retry.TTLSecondsAfterFinish = &t
		}
	}
	if n := pick("activeDeadlineSeconds"); n != nil && r.hasLimits(job, n, "activeDeadlineSeconds") {
		if v, ok := r.nonNegative(n, "activeDeadlineSeconds"); ok {
			job.Retry.ActiveDeadlineSeconds = &v
		}
	}
	if n := pick("backoffLimit"); n != nil && r.hasLimits(job, n, "backoffLimit") {
		if v, ok := r.nonNegative(n, "backoffLimit"); ok {
			b := int(v)
			job.Retry.BackoffLimit = &b
		}
	}
	if n := pick("schedulingPolicy"); n != nil {
		r.schedulingPolicy(job, n)
	}
	if n := pick("suspend"); n != nil {
		if v, ok := r.boolean(n, "suspend"); ok && v {
			r.warnf(n, "suspend ignored", "The job is suspended (suspend: true); on Kubernetes it would not start until resumed. jobshift starts it when you run it.")
		}
	}
	if n := pick("managedBy"); n != nil {
		r.warnf(n, "managedBy ignored", "managedBy names the Kubernetes controller that owns the job; jobshift runs it itself.")
	}
	rp.warnUnknown()
}

func (r *reader) nonNegative(n *yaml.Node, where string) (int64, bool) {
	v, ok := r.integer(n, where)
	if ok && v < 0 {
		r.errorf(n, "Negative value", "%s must be 0 or more, not %d.", where, v)
		return 0, false
	}
	return v, ok
}

// schedulingPolicy keeps priorityClass; the gang-scheduling hints only
// matter to Volcano / scheduler-plugins (jobshift gang-starts anyway).
func (r *reader) schedulingPolicy(job *jobs.Job, n *yaml.Node) {
	sp := r.mapOf(n, "schedulingPolicy")
	if pc := sp.get("priorityClass"); pc != nil {
		job.PriorityClass, _ = r.str(pc, "schedulingPolicy.priorityClass")
	}
	for _, f := range []string{"minAvailable", "queue", "minResources", "scheduleTimeoutSeconds"} {
		if fl := sp.field(f); fl.val != nil {
			r.warnf(fl.key, "Gang-scheduling hint ignored", "schedulingPolicy.%s only configures a Volcano / scheduler-plugins PodGroup; jobshift starts all tasks of a job together anyway.", f)
		}
	}
	sp.warnUnknown()
}
