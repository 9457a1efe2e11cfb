package kubeflow

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// PodReader reads Kubernetes pod templates with this package's rules (the
// package comment's "Pod template" and "-lossy" sections) for readers of
// other formats whose tasks are pod templates (jobs/volcano), so that a pod
// spec means the same thing whichever job kind holds it.
type PodReader struct{ r *reader }

// NewPodReader starts a pod-template reader whose diagnostics name path.
func NewPodReader(path string, lossy bool) *PodReader {
	r := &reader{path: path}
	r.Lossy = lossy
	return &PodReader{r: r}
}

// Template reads the pod template tmpl into role: the first container is
// the task (others are sidecars, dropped under the -lossy rule), no port
// is added, and injected names the variables the platform appends to the
// container's env (a user value for them is overridden, a $(NAME)
// reference to them cannot be expanded before run time). It returns the
// pod's restartPolicy as written ("" when absent) and its node.
func (p *PodReader) Template(role *jobs.Role, tmpl *yaml.Node, where string, injected []string) (string, *yaml.Node) {
	fl := &flavour{operatorEnv: injected}
	rp := p.r.podTemplate(role, tmpl, fl, where, nil)
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
