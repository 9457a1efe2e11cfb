package volcano

import (
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Group is the API group of the Volcano Job.
const Group = "batch.volcano.sh"

// IsVolcano reports whether a document of kind kind and apiVersion api is
// a Volcano Job (any version of the batch.volcano.sh group; the reader
// refuses versions other than v1alpha1 with a located reason).
func IsVolcano(kind, api string) bool {
	group, _, _ := strings.Cut(api, "/")
	return kind == "Job" && group == Group
}

// Read reads a file holding one Volcano Job, possibly among other
// documents (a ConfigMap with its scripts is common): those get a located
// "Ignored document" warning.
func Read(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	r := &reader{path: opts.Path}
	r.Lossy = opts.Lossy
	docs, d := yamlpos.Docs(src, opts.Path, yamlpos.Options{Hint: "Fix the YAML syntax (indentation, quoting) and try again."})
	if d != nil {
		return nil, hcl.Diagnostics{d}
	}
	r.docs, r.secrets, r.source = docs, opts.Secrets, opts.SecretSource
	k8sSecrets := opts.Secrets != nil && kubeflow.NewPodReader(opts.Path, false).SecretsFile(opts.Secrets)
	var job *jobs.Job
	for _, doc := range docs {
		root := yamlpos.Resolve(yamlpos.Root(doc))
		if yamlpos.IsNull(root) || root.Kind == yaml.DocumentNode {
			continue
		}
		if root.Kind != yaml.MappingNode {
			r.warnf(root, "Ignored document", "A YAML document that is not a mapping is no Kubernetes object; ignored.")
			continue
		}
		probe := (&reader{path: r.path}).mapOf(root, "")
		kind, _ := (&reader{path: r.path}).str(probe.get("kind"), "")
		api, _ := (&reader{path: r.path}).str(probe.get("apiVersion"), "")
		if !IsVolcano(kind, api) {
			if kind != "ConfigMap" && kind != "Secret" { // read by each task's pod reader
				r.ignored(root, kind, probe)
			}
			continue
		}
		if job != nil {
			r.lossyf(root, "More than one job in the file", "This file already holds a Volcano Job; jobshift reads one job per file and would drop this one. Put each job in its own file.")
			continue
		}
		job = r.readJob(r.mapOf(root, "the document"), api)
	}
	if job == nil && !r.Diags.HasErrors() {
		r.errorf(nil, "No Volcano Job in the file", "None of the YAML documents has kind Job and apiVersion batch.volcano.sh/v1alpha1.")
	}
	for _, w := range []struct {
		on   bool
		what string
	}{{len(opts.Vars) > 0, "-var"}, {opts.Secrets != nil && !k8sSecrets, "-secrets"}} {
		if w.on && job != nil {
			r.warnf(nil, w.what+" has no effect", "Volcano jobs have no OpenPAI parameters or secrets; %s is ignored.", w.what)
		}
	}
	return job, r.Diags
}

// ignored warns about a document that is not the job.
func (r *reader) ignored(root *yaml.Node, kind string, m *mapping) {
	name := ""
	if md := (&reader{path: r.path}).mapOf(m.get("metadata"), ""); md.node != nil {
		name, _ = (&reader{path: r.path}).str(md.get("name"), "")
	}
	if kind == "" {
		kind = "document without kind"
	}
	r.warnf(root, "Ignored document", "The %s %s in this file is not a Volcano Job; jobshift ignores it. What it provides (scripts, storage, permissions) must exist on the target by other means.", kind, name)
}

var (
	// DNS-1123 subdomain: what the API server requires of metadata.name.
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	// DNS-1123 label: a task name (pod and service names are built from it).
	dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// qualifiedName is Kubernetes' IsQualifiedName (without a prefix),
	// what validateJobName and validateK8sPodNameLength check.
	qualifiedName = regexp.MustCompile(`^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`)
)

// readJob reads the envelope and the spec.
func (r *reader) readJob(m *mapping, api string) *jobs.Job {
	kindNode := m.get("kind")
	if api != Group+"/v1alpha1" {
		r.errorf(m.get("apiVersion"), "Unknown Volcano API version", "apiVersion %q: Volcano serves its Job as batch.volcano.sh/v1alpha1 only.", api)
	}
	job := &jobs.Job{Source: jobs.Source{Format: jobs.FormatVolcano, Version: api, Kind: "Job", Path: r.path},
		Completion: jobs.Completion{Kind: jobs.CompletionVolcano, Pos: r.pos(kindNode)},
		Contracts:  []string{jobs.ContractVolcano}}
	m.get("status")
	m.get("apiVersion")
	r.metadata(m.get("metadata"), job, kindNode)
	_, specNode := m.field("spec")
	if yamlpos.IsNull(specNode) {
		r.errorf(kindNode, "Missing spec", "The Volcano Job has no spec; add spec.tasks.")
		return job
	}
	r.spec(job, r.mapOf(specNode, "spec"))
	m.warnUnknown()
	return job
}

// metadata reads the job name (generateName is accepted without the
// random suffix Kubernetes would add).
func (r *reader) metadata(n *yaml.Node, job *jobs.Job, kindNode *yaml.Node) {
	md := r.mapOf(n, "metadata")
	r.namespace, _ = r.str(md.get("namespace"), "metadata.namespace")
	for _, k := range []string{"labels", "annotations", "uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "ownerReferences", "finalizers"} {
		md.used[k] = true
	}
	nameNode := md.get("name")
	name, _ := r.str(nameNode, "metadata.name")
	if gen := md.get("generateName"); name == "" && gen != nil {
		g, _ := r.str(gen, "metadata.generateName")
		r.warnf(gen, "generateName used as the job name", "Kubernetes appends 5 random characters to generateName %q; jobshift names the job %q. Set metadata.name to choose the name.", g, strings.TrimRight(g, "-"))
		name, nameNode = strings.TrimRight(g, "-"), gen
	}
	job.Name, job.NamePos = name, r.pos(nameNode)
	switch {
	case name == "":
		r.errorf(kindNode, "Missing job name", "metadata.name is required; Kubernetes rejects the job without it.")
	case len(name) > 253 || !dns1123Subdomain.MatchString(name):
		r.errorf(nameNode, "Invalid job name", "%q is not a valid Kubernetes name (lower-case letters, digits, '-' and '.').", name)
	case len(name) > 63 || !qualifiedName.MatchString(name):
		// validateJobName (pkg/webhooks/admission/jobs/validate/admit_job.go @v1.16.0-alpha.1)
		r.errorf(nameNode, "Invalid job name", "%q is longer than 63 characters; Volcano's webhook rejects it (\"create job with name ... validate failed\").", name)
	}
	md.warnUnknown()
}

func newPodReader(r *reader) *kubeflow.PodReader {
	p := kubeflow.NewPodReader(r.path, r.Lossy)
	p.Objects(r.docs)
	p.SecretsFile(r.secrets)
	p.SecretSource(r.source)
	p.Namespace(r.namespace)
	return p
}
