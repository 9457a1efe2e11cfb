package kubeflow

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"go.yaml.in/yaml/v3"
)

// PodReader reads Kubernetes pod templates and container lists for the
// readers of formats built on them (jobs/trainer: a TrainJob's runtime is a
// JobSet template of pod templates), with this package's rules for what
// can be carried (the -lossy rule, volumes, resources, $(VAR) expansion).
type PodReader struct{ r *reader }

// NewPodReader starts a reader for the file at path.
func NewPodReader(path string, lossy bool) *PodReader {
	r := &reader{path: path}
	r.Lossy = lossy
	return &PodReader{r: r}
}

// Namespace sets the job's metadata.namespace ("" = Kubernetes' default),
// which a fieldRef to metadata.namespace gives.
func (p *PodReader) Namespace(ns string) { p.r.namespace = ns }

// Collector is where the reader's diagnostics go; the caller adds its own.
func (p *PodReader) Collector() *diag.Collector { return &p.r.Collector }

// PodOptions say which container is the task and which variables the
// platform injects into it (a user value for one of them is overridden,
// and a $(NAME) reference to one cannot be expanded before run time).
type PodOptions struct {
	Container   string   // the container that is the task ("" = the first)
	OperatorEnv []string // variables the platform appends
	EnvPrefix   string   // variable-name prefix the platform owns
}

// PodTemplate reads the pod template n into role (image, command, args,
// env, resources, ports, volumes) and returns the template's
// restartPolicy node (nil when absent). No port is added.
func (p *PodReader) PodTemplate(role *jobs.Role, n *yaml.Node, where string, o PodOptions) *yaml.Node {
	fl := &flavour{container: o.Container, operatorEnv: o.OperatorEnv, envPrefix: o.EnvPrefix}
	restart := p.r.podTemplate(role, n, fl, where, nil)
	out := role.Ports[:0]
	for _, pt := range role.Ports {
		if !(pt.Implicit && pt.Label == "") {
			out = append(out, pt)
		}
	}
	role.Ports = out
	return restart
}

// Env reads a list of Kubernetes EnvVar (a TrainJob's trainer.env) into
// role.Env, with this package's valueFrom rules, and returns the values.
func (p *PodReader) Env(role *jobs.Role, list *yaml.Node, where string, o PodOptions) map[string]string {
	fl := &flavour{container: o.Container, operatorEnv: o.OperatorEnv, envPrefix: o.EnvPrefix}
	holder := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "env"}, list}}
	vars, secret := p.r.env(role, p.r.mapOf(holder, where), fl, where)
	for n, s := range secret {
		if s {
			delete(vars, n) // a Secret's value never goes into a command line
		}
	}
	return vars
}

// Objects reads the ConfigMap and Secret documents among docs (the file's
// other documents), so the pod templates read afterwards resolve env
// valueFrom, envFrom and configMap/secret volumes from them.
func (p *PodReader) Objects(docs []*yaml.Node) { p.r.objectDocuments(docs) }

// SecretsFile adds the objects of a -secrets file (jobs.ReadOptions.Secrets)
// and reports whether it held Kubernetes objects.
func (p *PodReader) SecretsFile(v map[string]any) bool { return v != nil && p.r.objectsFrom(v) }

// SecretSource sets where a Secret neither the file nor the -secrets file
// holds is asked for (jobs.ReadOptions.SecretSource).
func (p *PodReader) SecretSource(s jobs.SecretSource) { p.r.source = s }

// Resources reads a ResourceRequirements value (resourcesPerNode) into
// role.Resources; key locates it.
func (p *PodReader) Resources(role *jobs.Role, key, val *yaml.Node, where string) {
	p.r.resources(role, field{key, val}, where)
}

// Volumes reads pod volumes and a container's volumeMounts (a TrainJob's
// podTemplateOverrides) into role.Volumes; texts are the task's command,
// args and env values, where a mounted path may be named.
func (p *PodReader) Volumes(role *jobs.Role, volumes, mounts []*yaml.Node, where string, texts []string) {
	vs := map[string]*yaml.Node{}
	for _, v := range volumes {
		if n, ok := p.r.silent().str(p.r.silent().mapOf(v, "").get("name"), ""); ok {
			vs[n] = v
		}
	}
	p.r.mounts(role, &containerInfo{where: where, mounts: mounts, texts: texts}, vs)
}

// StringList reads a list of strings (command, args), Kubernetes-typed.
func (p *PodReader) StringList(n *yaml.Node, where string) []string { return p.r.strList(n, where) }

// Quantity-free scalar helpers with Kubernetes typing.

// Str reads a string value.
func (p *PodReader) Str(n *yaml.Node, where string) (string, bool) { return p.r.str(n, where) }

// Int reads an integer value.
func (p *PodReader) Int(n *yaml.Node, where string) (int64, bool) { return p.r.integer(n, where) }

// Bool reads a boolean value.
func (p *PodReader) Bool(n *yaml.Node, where string) (bool, bool) { return p.r.boolean(n, where) }

// Expand is the kubelet's $(VAR) expansion of s over vars.
func Expand(s string, vars map[string]string) string {
	v, _ := expand(s, func(n string) (string, bool) { x, ok := vars[n]; return x, ok })
	return v
}

// Template reads the pod template tmpl into role for jobs/volcano: the first
// container is the task (others are sidecars, dropped under the -lossy rule),
// no port is added, and injected names the variables the platform appends
// to the container's env (a user value for them is overridden, a $(NAME)
// reference to them cannot be expanded before run time). It returns the
// pod's restartPolicy as written ("" when absent) and its node.
func (p *PodReader) Template(role *jobs.Role, tmpl *yaml.Node, where string, injected []string) (string, *yaml.Node) {
	rp := p.PodTemplate(role, tmpl, where, PodOptions{OperatorEnv: injected})
	if rp == nil {
		return "", nil
	}
	v, ok := p.r.restartPolicy(rp, where+".spec.restartPolicy", false)
	if !ok {
		return "", rp
	}
	return v, rp
}

// Diags are the diagnostics so far.
func (p *PodReader) Diags() hcl.Diagnostics { return p.r.Diags }
