package trainer

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
)

// initializers applies spec.initializer (builder.go Initializer @v2.3.0):
// the dataset and model initializer jobs get STORAGE_URI and the user's
// env; a secretRef becomes envFrom of a Kubernetes Secret, which jobshift
// cannot read. A storageUri whose scheme fetches from the network is
// refused: jobshift jobs run with the data the site already has.
func (b *builder) initializers() {
	f, in := b.tj.f, b.tj.initializer
	for _, k := range []struct{ field, ancestor string }{{"dataset", datasetInitializer}, {"model", modelInitializer}} {
		e := in.field(k.field)
		if e.val == nil {
			continue
		}
		where := "spec.initializer." + k.field
		m := f.mapOf(e.val, where)
		role := b.job.Role(k.ancestor)
		b.checkInitializer(e, k.ancestor, where)
		tmp := &jobs.Role{}
		if n := m.get("storageUri"); n != nil {
			if u, ok := f.str(n, where+".storageUri"); ok && u != "" {
				tmp.Env = append(tmp.Env, jobs.EnvVar{Name: "STORAGE_URI", Value: u, Pos: f.pos(n)})
			}
		}
		if n := m.get("env"); n != nil {
			f.pod.Env(tmp, n, where+".env", kubeflow.PodOptions{})
		}
		if n := m.get("secretRef"); n != nil {
			f.lossyf(n, "Secret reference dropped", "%s.secretRef passes a Kubernetes Secret to the initializer as variables; jobshift cannot read Kubernetes Secrets. Put the values in env.", where)
		}
		m.warnUnknown()
		if role != nil {
			upsertEnv(role, tmp.Env)
		}
	}
	in.warnUnknown()
	for _, r := range b.job.Roles {
		if r.ReplicaType != datasetInitializer && r.ReplicaType != modelInitializer {
			continue
		}
		for _, e := range r.Env {
			if e.Name == "STORAGE_URI" && networkScheme(e.Value) {
				b.siteStorage(r, e)
			}
		}
	}
}

// siteStorage maps an initializer's network storage URI by the site's
// storage_uri rules: an initializer of the upstream image (no command of
// its own, pkg/initializers downloads STORAGE_URI to its output,
// constants.DatasetMountPath / ModelMountPath @v2.3.0) copies the site's
// directory there instead; one with its own command runs it as written.
// Without a rule the job is refused.
func (b *builder) siteStorage(r *jobs.Role, e jobs.EnvVar) {
	path, ok := "", false
	if b.storagePath != nil {
		path, ok = b.storagePath(e.Value)
	}
	if !ok {
		b.tj.f.c.Errorf(e.Pos, "Storage URI needs the network", "The %s would download %q; jobshift does not fetch data from the network for a job. Stage it on the nodes and map it with a site rule, trainer { storage_uri \"%s\" { path = \"/site/cache/...\" } } in jobshift.hcl, or give the initializer a command that copies it.", r.Name, e.Value, e.Value)
		return
	}
	out := "/workspace/dataset"
	if r.ReplicaType == modelInitializer {
		out = "/workspace/model"
	}
	if len(r.Command.Command) == 0 && len(r.Command.Args) == 0 {
		r.Command.Command = []string{"sh", "-c", `mkdir -p "$1" && cp -a "$2"/. "$1"/`, "sh", out, path}
		b.tj.f.c.Warnf(e.Pos, "Initializer reads the site's copy", "The %s would download %q to %s; the site's storage_uri rule maps it to %s, which the step copies there instead.", r.Name, e.Value, out, path)
		return
	}
	b.tj.f.c.Warnf(e.Pos, "Initializer runs its own command", "The site maps %q to %s; the %s runs its own command as written, with STORAGE_URI unchanged.", e.Value, path, r.Name)
}

// networkScheme reports a storage URI the upstream initializers download
// (pkg/initializers: hf://, s3://, and the http(s) and gs:// forms).
func networkScheme(u string) bool {
	for _, s := range []string{"hf://", "s3://", "gs://", "http://", "https://", "oci://"} {
		if strings.HasPrefix(u, s) {
			return true
		}
	}
	return false
}

// checkInitializer is jobset.go Validate @v2.3.0: a TrainJob with
// initializer.dataset (model) needs a runtime job named dataset-initializer
// (model-initializer) with a container of that name that mounts the volume
// named "initializer" (jobset constants.VolumeNameInitializer).
func (b *builder) checkInitializer(e kv, name, where string) {
	f := b.tj.f
	var rj *rjob
	for _, r := range b.rt.rjobs {
		if r.name == name {
			rj = r
		}
	}
	if rj == nil {
		f.errorf(e.key, "No "+name+" job in the runtime", "%s needs a replicated job named %s in the runtime %s; Trainer rejects the TrainJob (\"must have %s job\").", where, name, b.rt.name, name)
		return
	}
	for _, c := range yamlSeq(child(rj.pod, "spec", "containers")) {
		if scalar(child(c, "name")) != name {
			continue
		}
		for _, m := range yamlSeq(child(c, "volumeMounts")) {
			if scalar(child(m, "name")) == "initializer" {
				return
			}
		}
		f.errorf(e.key, "Initializer without its volume", "The %s container of the runtime %s must mount the volume named initializer (where the trainer reads what it writes); Trainer rejects the TrainJob.", name, b.rt.name)
		return
	}
	f.errorf(e.key, "No "+name+" container", "The %s job of the runtime %s must have a container named %s; Trainer rejects the TrainJob.", name, b.rt.name, name)
}
