package kubeflow

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// jobKinds maps the lower-cased kind to the format. `TfJob` is the 2017
// spelling (mlkube.io, tensorflow.org); Kubernetes kinds are case-sensitive,
// but no operator ever served a kind differing only in case, so matching
// case-insensitively only turns a typo into a working job.
var jobKinds = map[string]jobs.Format{
	"tfjob":      jobs.FormatTFJob,
	"pytorchjob": jobs.FormatPyTorchJob,
	"mpijob":     jobs.FormatMPIJob,
	"xgboostjob": jobs.FormatXGBoostJob,
	"paddlejob":  jobs.FormatPaddleJob,
	"jaxjob":     jobs.FormatJAXJob,
	"mxjob":      jobs.FormatMXJob,
}

// kindNames are the kinds as the operators define them.
var kindNames = map[jobs.Format]string{jobs.FormatTFJob: "TFJob", jobs.FormatPyTorchJob: "PyTorchJob", jobs.FormatMPIJob: "MPIJob",
	jobs.FormatXGBoostJob: "XGBoostJob", jobs.FormatPaddleJob: "PaddleJob", jobs.FormatJAXJob: "JAXJob", jobs.FormatMXJob: "MXJob"}

// kindLineRE finds an uncommented `kind: <job kind>` line; commentedKindRE a
// commented-out one (a manifest kept in a file with everything disabled).
var (
	kindLineRE      = regexp.MustCompile(`(?mi)^[ \t]*["']?kind["']?[ \t]*:[ \t]*["']?(tfjob|pytorchjob|mpijob|xgboostjob|paddlejob|jaxjob|mxjob|appwrapper)["']?[ \t]*,?[ \t]*(#.*)?\r?$`)
	commentedKindRE = regexp.MustCompile(`(?mi)^[ \t]*#[ \t]*kind[ \t]*:[ \t]*["']?(tfjob|pytorchjob|mpijob|xgboostjob|paddlejob|jaxjob|mxjob)["']?`)
)

// IsKubeflow reports whether src looks like a Kubeflow job file, by content
// and without a full parse, so that a loader can dispatch even files that
// are broken YAML (they still deserve this reader's located errors). It
// says yes for a `kind:` line naming TFJob/TfJob, PyTorchJob, MPIJob or an
// AppWrapper, and for a file whose only content is a commented-out job.
func IsKubeflow(src []byte) bool {
	if m := kindLineRE.FindSubmatch(src); m != nil {
		if !strings.EqualFold(string(m[1]), "appwrapper") {
			return true
		}
		// An AppWrapper counts only when it wraps a Kubeflow job.
		return bytes.Contains(bytes.ToLower(src), []byte("kubeflow.org/"))
	}
	return onlyComments(src) && commentedKindRE.Match(src)
}

// onlyComments reports whether src has no YAML content besides comments,
// blank lines and document markers.
func onlyComments(src []byte) bool {
	for _, line := range bytes.Split(src, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || string(t) == "---" || string(t) == "..." {
			continue
		}
		return false
	}
	return true
}

// Read reads a Kubeflow job file: TFJob in every API generation (2017
// TfJob, kubeflow.org v1alpha1 … v1, kubeflow.caicloud.io v1alpha1),
// PyTorchJob (v1alpha1 … v1) and MPIJob (v1alpha1 … v2beta1, mpijob.go),
// possibly wrapped in an AppWrapper. Multi-document YAML is allowed: the job document
// is found, the others are reported as ignored. On errors the returned job
// may be nil; when it is not, it carries everything that could be read.
func Read(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	r := &reader{path: opts.Path, source: opts.SecretSource}
	r.Lossy = opts.Lossy
	k8sSecrets := opts.Secrets != nil && r.objectsFrom(opts.Secrets)
	job := r.read(src)
	if job != nil {
		// Options that belong to other formats: say so rather than
		// silently doing nothing with them.
		if len(opts.Vars) > 0 {
			r.warnf(nil, "-var has no effect", "Kubeflow jobs have no parameters; the -var values are ignored.")
		}
		if opts.Secrets != nil && !k8sSecrets {
			r.warnf(nil, "-secrets has no effect", "Kubeflow jobs take no PAI secrets; the -secrets file is ignored. (A file of Kubernetes Secrets and ConfigMaps, kind: Secret or ConfigMap, is read.)")
		}
		// -dialect is reported by jobs/load, which sees it before dispatch.
	}
	return job, r.Diags
}

func (r *reader) read(src []byte) *jobs.Job {
	docs, ok := r.parseDocuments(src)
	if !ok {
		return nil
	}
	var job *jobs.Job
	found := false
	contentDocs := 0
	withJob := r.objectDocuments(docs)
	for _, d := range docs {
		root := d
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if isNull(root) || root.Kind == yaml.DocumentNode {
			continue // empty document (`---` alone, or only comments)
		}
		contentDocs++
		obj, wrapper := r.unwrap(root)
		if obj == nil {
			continue
		}
		// Probe the kind silently: documents that are not jobs get one
		// "ignored" warning, not diagnostics about their content.
		kindNode := r.silent().mapOf(obj, "").get("kind")
		kind, _ := r.silent().str(kindNode, "")
		format, isJob := jobKinds[strings.ToLower(kind)]
		if isObjectKind(kind) && withJob {
			continue // read by objectDocuments for the job's pods
		}
		if !isJob {
			r.ignoredDocument(obj, kind)
			continue
		}
		m := r.mapOf(obj, "the document")
		m.get("kind")
		if kind != "TfJob" && kind != kindNames[format] {
			r.warnf(kindNode, "Kind spelled unusually", "Kubernetes kinds are case-sensitive and the API server knows no %q; jobshift reads it as %s. Write the kind as the operator defines it.", kind, kindNames[format])
		}
		if found {
			r.lossyf(kindNode, "More than one job in the file", "This file already holds a job; jobshift reads one job per file and would drop this %s. Put each job in its own file.", kind)
			continue
		}
		found = true
		if wrapper != "" {
			r.warnf(root, "AppWrapper unwrapped", "The %s is wrapped in an %s; jobshift runs the wrapped job and ignores the wrapper's own fields (queueing, retries, resource accounting).", kind, wrapper)
		}
		job = r.readJob(m, format, kind, kindNode)
	}
	if !found {
		switch {
		case contentDocs == 0 && onlyComments(src) && commentedKindRE.Match(src):
			r.errorf(nil, "No YAML document", "The file holds no YAML document: the whole manifest is commented out. Remove the leading # from the job's lines.")
		case contentDocs == 0:
			r.errorf(nil, "No YAML document", "The file is empty or holds only comments; a Kubeflow job file needs a document with kind: TFJob or PyTorchJob.")
		default:
			r.errorf(nil, "No Kubeflow job in the file", "None of the %d YAML documents has kind TFJob, TfJob, PyTorchJob, MPIJob, XGBoostJob, PaddleJob, JAXJob or MXJob.", contentDocs)
		}
	}
	return job
}

// unwrap returns the Kubernetes object a document holds: the document
// itself, or the Kubeflow job inside an AppWrapper (workload.codeflare.dev
// v1beta2 spec.components[].template, or the older mcad.ibm.com
// spec.resources.GenericItems[].generictemplate). The second result names
// the wrapper.
func (r *reader) unwrap(root *yaml.Node) (*yaml.Node, string) {
	root = deref(root)
	if root.Kind != yaml.MappingNode {
		r.warnf(root, "Ignored document", "A YAML document that is not a mapping (it is %s) is no Kubernetes object; ignored.", describe(root))
		return nil, ""
	}
	kind := ""
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "kind" {
			kind = scalar(root.Content[i+1])
		}
	}
	if !strings.EqualFold(kind, "AppWrapper") {
		return root, ""
	}
	q := &reader{path: r.path} // probing must not report twice
	spec := q.mapOf(q.mapOf(root, "").get("spec"), "")
	var inner []*yaml.Node
	for _, c := range q.seq(spec.get("components"), "") {
		inner = append(inner, q.mapOf(c, "").get("template"))
	}
	for _, g := range q.seq(q.mapOf(spec.get("resources"), "").get("GenericItems"), "") {
		inner = append(inner, q.mapOf(g, "").get("generictemplate"))
	}
	for _, n := range inner {
		k, _ := q.str(q.mapOf(n, "").get("kind"), "")
		if _, ok := jobKinds[strings.ToLower(k)]; ok {
			return deref(n), "AppWrapper"
		}
	}
	return root, ""
}

// ignoredDocument warns about a non-job document (PVC, RBAC, ConfigMap...).
func (r *reader) ignoredDocument(obj *yaml.Node, kind string) {
	if kind == "" {
		r.warnf(obj, "Ignored document", "This YAML document has no kind; it is not a Kubeflow job and jobshift ignores it.")
		return
	}
	name := ""
	if md := deref(r.silent().mapOf(obj, "").get("metadata")); md != nil && md.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(md.Content); i += 2 {
			if md.Content[i].Value == "name" {
				name = " " + scalar(md.Content[i+1])
			}
		}
	}
	if ForeignTrainingKind(kind) {
		r.warnf(obj, "Training job jobshift cannot run", "The %s%s in this file is a training job of a kind jobshift does not read, so it is not run. jobshift reads %s.", kind, name, ReadsKinds)
		return
	}
	r.warnf(obj, "Ignored document", "The %s%s in this file is not a job; jobshift ignores it. Whatever it provides (storage, permissions, configuration) must exist on the target cluster by other means.", kind, name)
}

// objectDocuments reads the file's ConfigMap and Secret documents first,
// so a job may name them whatever the documents' order. It reports whether
// the file holds a job at all (without one they are merely ignored).
func (r *reader) objectDocuments(docs []*yaml.Node) bool {
	withJob := false
	for _, d := range docs {
		root := d
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		root = deref(root)
		if root == nil || root.Kind != yaml.MappingNode {
			continue
		}
		q := r.silent()
		obj, _ := q.unwrap(root)
		kind, _ := q.str(q.mapOf(obj, "").get("kind"), "")
		if isObjectKind(kind) {
			r.object(root, kind)
		}
		if _, ok := jobKinds[strings.ToLower(kind)]; ok {
			withJob = true
		}
	}
	return withJob
}

// ReadsKinds names the Kubernetes kinds this package reads.
const ReadsKinds = "Kubeflow TFJob, PyTorchJob, MPIJob, XGBoostJob, PaddleJob, JAXJob and MXJob"

// foreignTraining are kinds of other batch and training systems (Ray,
// Spark, JobSet, Kubernetes Jobs, Argo, LeaderWorkerSet, Kubeflow Katib):
// jobs a user may hand to jobshift expecting them to run, which must be
// called jobs it cannot run, never configuration.
var foreignTraining = map[string]bool{
	"RayJob": true, "RayCluster": true, "RayService": true, "SparkApplication": true, "ScheduledSparkApplication": true,
	"JobSet": true, "Job": true, "CronJob": true, "Workflow": true, "CronWorkflow": true, "LeaderWorkerSet": true,
	"Experiment": true, "PaddleJobV2": true, "DeepSpeedJob": true, "Notebook": true,
}

// ForeignTrainingKind reports whether kind is a job of a system jobshift
// does not read.
func ForeignTrainingKind(kind string) bool { return foreignTraining[kind] }
