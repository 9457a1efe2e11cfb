package kubeflow

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// Kubernetes ConfigMaps and Secrets a job's pods read (env valueFrom,
// envFrom, configMap and secret volumes) come from the job file itself
// (extra documents, as many real files carry them) or from the -secrets
// file (one object, several documents, or a v1 List). Their values are
// resolved when the job is read, as the kubelet resolved them when it
// started the container; a Secret's values are marked secret (EnvVar.Secret,
// File.Secret) and never appear in a diagnostic.

// object is one ConfigMap or Secret: its keys and values (Secret data
// base64-decoded, stringData merged over it as the API server does).
type object struct {
	kind   string // ConfigMap or Secret
	name   string
	secret bool
	values map[string]string
	pos    jobs.Pos
}

// keys returns the object's keys in sorted order (the kubelet writes volume
// files and envFrom variables from a map; sorted is the stable choice).
func (o *object) keys() []string {
	ks := make([]string, 0, len(o.values))
	for k := range o.values {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// objectKinds are the kinds read as objects.
func isObjectKind(kind string) bool { return kind == "ConfigMap" || kind == "Secret" }

// object reads a ConfigMap or Secret document into r.objs.
func (r *reader) object(n *yaml.Node, kind string) {
	m := r.mapOf(n, kind)
	m.ignore("apiVersion", "kind", "immutable", "type")
	md := r.mapOf(m.get("metadata"), kind+".metadata")
	name, _ := r.str(md.get("name"), kind+".metadata.name")
	md.ignore("namespace", "labels", "annotations", "generateName", "uid", "resourceVersion", "creationTimestamp")
	if name == "" {
		r.errorf(n, "Missing name", "This %s has no metadata.name; the pods refer to it by name.", kind)
		return
	}
	o := &object{kind: kind, name: name, secret: kind == "Secret", values: map[string]string{}, pos: r.pos(n)}
	plain, encoded := "data", "binaryData"
	if o.secret {
		plain, encoded = "stringData", "data"
	}
	r.objectValues(o, m.get(encoded), true)
	r.objectValues(o, m.get(plain), false)
	m.warnUnknown()
	if r.objs == nil {
		r.objs = map[string]*object{}
	}
	if prev, dup := r.objs[kind+"/"+name]; dup {
		r.warnf(n, "Second "+kind+" of one name", "The %s %q is defined again (first at line %d); the later one is used, as kubectl apply would leave it.", kind, name, prev.pos.Line)
	}
	r.objs[kind+"/"+name] = o
}

// objectValues reads a data/binaryData/stringData mapping. A value that
// cannot be read is reported by its key, never by its content.
func (r *reader) objectValues(o *object, n *yaml.Node, base64Encoded bool) {
	m := r.mapOf(n, o.kind+" "+o.name)
	for _, f := range m.fields {
		m.used[f.key.Value] = true
		v := deref(f.val)
		if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			r.errorf(f.key, "Invalid "+o.kind+" value", "The key %q of %s %q must have a string value.", f.key.Value, o.kind, o.name)
			continue
		}
		if msg := jobs.ObjectKeyError(f.key.Value); msg != "" {
			r.errorf(f.key, "Invalid "+o.kind+" key", "The key %q of %s %q %s; Kubernetes rejects it (and a volume of it would place a file outside its mount path).", f.key.Value, o.kind, o.name, msg)
			continue
		}
		val := v.Value
		if base64Encoded {
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(val), ""))
			if err != nil {
				r.errorf(f.key, "Invalid base64", "The value of key %q of %s %q is not base64; Kubernetes rejects it. (Use stringData for plain text.)", f.key.Value, o.kind, o.name)
				continue
			}
			val = string(b)
		}
		o.values[f.key.Value] = val
	}
}

// objectsFrom adds the objects a -secrets file holds: a ConfigMap or
// Secret, a v1 List of them, or (decoded by the CLI from several
// documents) a List. Anything else is not a Kubernetes object and is left
// to the formats that read PAI secrets.
func (r *reader) objectsFrom(v map[string]any) bool {
	kind, _ := v["kind"].(string)
	switch {
	case isObjectKind(kind):
		r.objectFromValue(v, kind)
		return true
	case kind == "List":
		items, _ := v["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if k, _ := m["kind"].(string); isObjectKind(k) {
					r.objectFromValue(m, k)
				}
			}
		}
		return true
	}
	return false
}

// objectFromValue is object for an already decoded value (-secrets file).
func (r *reader) objectFromValue(v map[string]any, kind string) {
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		r.errorf(nil, "Invalid secrets file", "The %s in the -secrets file cannot be read.", kind)
		return
	}
	r.object(n, kind)
}

// lookupObject finds a ConfigMap or Secret by name; a Secret neither the
// file nor the -secrets file holds is asked of the site's source, once per
// name. False: the source could not be asked, which is reported at at (the
// caller reports nothing more).
func (r *reader) lookupObject(at *yaml.Node, kind, name string) (*object, bool) {
	if o := r.objs[kind+"/"+name]; o != nil || kind != "Secret" || r.source == nil || r.asked[name] {
		return o, true
	}
	if r.sourceErr == nil {
		if r.asked == nil {
			r.asked = map[string]bool{}
		}
		r.asked[name] = true
		v, err := r.source(name)
		if err == nil && v != nil {
			r.objectFromValue(v, kind)
			return r.objs[kind+"/"+name], true
		}
		r.sourceErr = err
	}
	if r.sourceErr != nil {
		r.errorf(at, "Cannot read the site's secrets", "The job needs the Secret %q, which neither the job file nor a -secrets file holds, and %v.", name, r.sourceErr)
		return nil, false
	}
	return nil, true
}

// refKind maps the reference field names to object kinds.
var refKind = map[string]string{
	"secretKeyRef": "Secret", "configMapKeyRef": "ConfigMap",
	"secretRef": "Secret", "configMapRef": "ConfigMap",
	"secret": "Secret", "configMap": "ConfigMap",
}

// missingObject reports a reference to an object neither the file nor the
// -secrets file holds: optional ones are absent on Kubernetes too
// (warning); required ones would have kept the pod from starting (error
// unless -lossy).
func (r *reader) missingObject(at *yaml.Node, what, kind, name string, optional bool, gives string) {
	if optional {
		r.warnf(at, "Optional "+kind+" absent", "%s (%s %q, optional) would give %s; neither the job file nor the -secrets file holds that %s, so the task runs without it, as on Kubernetes when it is missing.", what, kind, name, gives, kind)
		return
	}
	r.lossyf(at, kind+" not found", "%s needs the %s %q for %s; add it to the job file as another YAML document (apiVersion: v1, kind: %s) or pass it with -secrets FILE. On Kubernetes the pod would not start without it.", what, kind, name, gives, kind)
}

// missingKey reports a key the object lacks.
func (r *reader) missingKey(at *yaml.Node, what string, o *object, key string) {
	r.errorf(at, "Key not found", "%s names the key %q, which the %s %q does not have (it has %s); on Kubernetes the container would not start (CreateContainerConfigError).", what, key, o.kind, o.name, keyList(o))
}

func keyList(o *object) string {
	ks := o.keys()
	if len(ks) == 0 {
		return "no keys"
	}
	return fmt.Sprintf("%q", ks)
}

// objectVolume turns a configMap or secret volume mounted at mountPath into
// the files the kubelet wrote there (pkg/volume/configmap, pkg/volume/secret:
// every key as a file, or only the listed items at their paths, mode
// items[].mode, else defaultMode, else 0644): jobs.Role.Files, Secret ones
// marked secret. A subPath mount puts the one file at mountPath itself.
//
// A volume whose object is absent is an error only when the command,
// working directory or environment names its path (as for any volume
// jobshift cannot provide); otherwise the task may never look there.
func (r *reader) objectVolume(role *jobs.Role, field string, src *mapping, at *yaml.Node, mountPath, sub string, used bool) {
	kind, nameKey := refKind[field], "name"
	if field == "secret" {
		nameKey = "secretName"
	}
	w := "volume " + field
	name, _ := r.str(src.get(nameKey), w+"."+nameKey)
	opt, _ := r.boolean(src.get("optional"), w+".optional")
	mode := uint32(0o644)
	if n := src.get("defaultMode"); n != nil {
		if v, ok := r.fileMode(n, w+".defaultMode"); ok {
			mode = v
		}
	}
	type item struct {
		key, path string
		mode      uint32
		at        *yaml.Node
	}
	var items []item
	for i, in := range r.seq(src.get("items"), w+".items") {
		iw := fmt.Sprintf("%s.items[%d]", w, i)
		im := r.mapOf(in, iw)
		key, _ := r.str(im.get("key"), iw+".key")
		p, _ := r.str(im.get("path"), iw+".path")
		it := item{key: key, path: p, mode: mode, at: in}
		if n := im.get("mode"); n != nil {
			if v, ok := r.fileMode(n, iw+".mode"); ok {
				it.mode = v
			}
		}
		im.warnUnknown()
		if p == "" || strings.HasPrefix(p, "/") || hasDotDot(p) {
			r.errorf(in, "Invalid item path", "%s.path %q must be a relative path without '..'; Kubernetes rejects it.", iw, p)
			continue
		}
		items = append(items, it)
	}
	src.warnUnknown()
	o, ok := r.lookupObject(at, kind, name)
	if !ok {
		return
	}
	if o == nil {
		if !opt && !used {
			r.warnf(at, kind+" not found", "The volume mounted at %s needs the %s %q, which neither the job file nor the -secrets file holds; the task will not see those files (its command, working directory and environment do not name that path). Add the %s to the job file as another YAML document or pass it with -secrets FILE.", mountPath, kind, name, kind)
			return
		}
		r.missingObject(at, "The volume mounted at "+mountPath, kind, name, opt, "its keys as files")
		return
	}
	if len(items) == 0 {
		for _, k := range o.keys() {
			items = append(items, item{key: k, path: k, mode: mode, at: at})
		}
	}
	for _, it := range items {
		v, ok := o.values[it.key]
		if !ok {
			if !opt {
				r.missingKey(it.at, "The volume mounted at "+mountPath, o, it.key)
			}
			continue
		}
		path := strings.TrimRight(mountPath, "/") + "/" + it.path
		if sub != "" {
			if sub != it.path {
				continue
			}
			path = mountPath
		}
		role.Files = append(role.Files, jobs.File{Path: path, Content: v, Mode: it.mode, Secret: o.secret, Pos: r.pos(it.at)})
	}
}

// fileMode reads a Kubernetes file mode (an integer 0-0777; YAML writes
// it in octal or decimal).
func (r *reader) fileMode(n *yaml.Node, where string) (uint32, bool) {
	v, ok := r.integer(n, where)
	if !ok {
		return 0, false
	}
	if v < 0 || v > 0o777 {
		r.errorf(n, "Invalid file mode", "%s is %d; a file mode is between 0 and 0777 (511); Kubernetes rejects it.", where, v)
		return 0, false
	}
	return uint32(v), true
}

func hasDotDot(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == ".." {
			return true
		}
	}
	return false
}
