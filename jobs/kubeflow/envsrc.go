package kubeflow

import (
	"fmt"
	"regexp"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// envVarName is the kubelet's check on envFrom keys before Kubernetes
// v1.34 relaxed it (k8s.io/apimachinery pkg/util/validation IsEnvVarName:
// [-._a-zA-Z][-._a-zA-Z0-9]*); keys that fail it are skipped with an
// event, not an error (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
var envVarName = regexp.MustCompile(`^[-._a-zA-Z][-._a-zA-Z0-9]*$`)

// envList builds a container's environment in the kubelet's order: envFrom
// sources first, then env entries, a later entry replacing an earlier one
// of the same name (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables).
type envList struct {
	role   *jobs.Role
	index  map[string]int
	vars   map[string]string
	secret map[string]bool
	fields map[string]bool // names whose value is a pod field (FieldPath)
}

func (l *envList) set(e jobs.EnvVar) {
	if i, ok := l.index[e.Name]; ok {
		l.role.Env = append(l.role.Env[:i], l.role.Env[i+1:]...)
		for n, j := range l.index {
			if j > i {
				l.index[n] = j - 1
			}
		}
	}
	l.index[e.Name] = len(l.role.Env)
	l.role.Env = append(l.role.Env, e)
	l.fields[e.Name] = e.FieldPath != ""
	if e.FieldPath != "" {
		// known only at run time (see refersToField)
		delete(l.vars, e.Name)
		delete(l.secret, e.Name)
		return
	}
	l.vars[e.Name] = e.Value
	l.secret[e.Name] = e.Secret
}

// env reads envFrom and env. Values are expanded the way the kubelet does
// ($(VAR) of variables defined earlier; $$ escapes). It returns the final
// environment for expanding command and args, and which of its names hold
// a Secret's value.
func (r *reader) env(role *jobs.Role, c *mapping, fl *flavour, where string) (map[string]string, map[string]bool) {
	l := &envList{role: role, index: map[string]int{}, vars: map[string]string{}, secret: map[string]bool{}, fields: map[string]bool{}}
	for i, ef := range r.seq(c.get("envFrom"), where+".envFrom") {
		r.envFrom(l, ef, fmt.Sprintf("%s.envFrom[%d]", where, i))
	}
	for i, en := range r.seq(c.get("env"), where+".env") {
		w := fmt.Sprintf("%s.env[%d]", where, i)
		e := r.mapOf(en, w)
		nameNode := e.get("name")
		name, _ := r.str(nameNode, w+".name")
		if name == "" {
			r.errorf(en, "Missing env name", "%s has no name; Kubernetes rejects it.", w)
			continue
		}
		valNode, fromF := e.get("value"), e.field("valueFrom")
		if valNode != nil && fromF.val != nil {
			r.errorf(fromF.key, "value and valueFrom together", "The env variable %s sets both value and valueFrom; Kubernetes rejects this. Keep one.", name)
			continue
		}
		if fromF.val != nil {
			if v, ok := r.valueFrom(name, fromF, fl); ok {
				v.Pos = r.pos(nameNode)
				l.set(v)
			}
			continue
		}
		val, ok := r.str(valNode, w+".value")
		if !ok && !isNull(valNode) {
			continue // not a string: reported; Kubernetes rejects the pod
		}
		usesSecret := false
		val, unresolved := expand(val, func(n string) (string, bool) {
			v, ok := l.vars[n]
			usesSecret = usesSecret || ok && l.secret[n]
			return v, ok
		}) // names not defined earlier stay literal, as in the kubelet
		r.refersToField(valNode, val, unresolved, l.fields)
		if fl.ownsEnv(name) {
			r.warnf(nameNode, "Variable overridden by the operator", "The operator appends its own %s after the user's env and Kubernetes uses the later entry, so this value does not reach the task; jobshift's contract sets %s the same way.", name, name)
		}
		l.set(jobs.EnvVar{Name: name, Value: val, Pos: r.pos(nameNode), Secret: usesSecret})
		e.warnUnknown()
	}
	return l.vars, l.secret
}

// refersToField refuses $(NAME) in s (at n) when NAME takes a field of
// the pod (fieldRef): Kubernetes expands it from the pod's value, which
// jobshift knows only when the task runs, so it would stay as written.
func (r *reader) refersToField(n *yaml.Node, s string, unresolved []string, fields map[string]bool) {
	for _, name := range unresolved {
		if fields[name] {
			r.lossyf(n, "Reference to a pod field", "$(%s) in %q is expanded by Kubernetes from the pod's own field (fieldRef); jobshift gives %s to the task only when it starts, so it would stay as written. Use a shell (sh -c '... $%s ...') instead.", name, s, name, name)
			return
		}
	}
}

// envFrom adds every key of a ConfigMap or Secret as a variable, with the
// entry's prefix.
func (r *reader) envFrom(l *envList, ef *yaml.Node, w string) {
	m := r.mapOf(ef, w)
	prefix, _ := r.str(m.get("prefix"), w+".prefix")
	for _, field := range []string{"configMapRef", "secretRef"} {
		f := m.field(field)
		if f.val == nil {
			continue
		}
		kind := refKind[field]
		sm := r.mapOf(f.val, w+"."+field)
		name, _ := r.str(sm.get("name"), w+"."+field+".name")
		opt, _ := r.boolean(sm.get("optional"), w+"."+field+".optional")
		sm.warnUnknown()
		o, ok := r.lookupObject(f.key, kind, name)
		if !ok {
			continue
		}
		if o == nil {
			r.missingObject(f.key, "envFrom "+field, kind, name, opt, "every key of it as a variable")
			continue
		}
		for _, k := range o.keys() {
			if !envVarName.MatchString(prefix + k) {
				r.warnf(f.key, "Key skipped", "The key %q of %s %q is not a valid variable name; the kubelet skips it (with an InvalidEnvironmentVariableNames event), and so does jobshift.", prefix+k, kind, name)
				continue
			}
			l.set(jobs.EnvVar{Name: prefix + k, Value: o.values[k], Pos: r.pos(f.key), Secret: o.secret})
		}
	}
	m.warnUnknown()
}

// valueFrom resolves env[].valueFrom: a key of a ConfigMap or Secret, or a
// fieldRef (fieldref.go). A resourceFieldRef cannot be known.
func (r *reader) valueFrom(name string, f field, fl *flavour) (jobs.EnvVar, bool) {
	vf := r.silent().mapOf(f.val, "")
	if fr := vf.field("fieldRef"); fr.val != nil {
		return r.fieldRef(name, fr, fl)
	}
	for _, field := range []string{"secretKeyRef", "configMapKeyRef"} {
		src := vf.get(field)
		if src == nil {
			continue
		}
		kind, w := refKind[field], "env "+name+" from "+field
		sm := r.mapOf(src, w)
		ref, _ := r.str(sm.get("name"), w+".name")
		keyNode := sm.get("key")
		key, _ := r.str(keyNode, w+".key")
		opt, _ := r.boolean(sm.get("optional"), w+".optional")
		sm.warnUnknown()
		o, ok := r.lookupObject(f.key, kind, ref)
		if !ok {
			return jobs.EnvVar{}, false
		}
		if o == nil {
			r.missingObject(f.key, w, kind, ref, opt, fmt.Sprintf("key %q as %s", key, name))
			return jobs.EnvVar{}, false
		}
		v, ok := o.values[key]
		if !ok {
			if !opt {
				at := keyNode
				if at == nil {
					at = f.key
				}
				r.missingKey(at, w, o, key)
			}
			return jobs.EnvVar{}, false
		}
		return jobs.EnvVar{Name: name, Value: v, Secret: o.secret}, true
	}
	r.lossyf(f.key, "Variable from the pod dropped", "The env variable %s takes its value from the Kubernetes pod (resourceFieldRef); jobshift cannot compute it and the task would run without it. Set a plain value instead.", name)
	return jobs.EnvVar{}, false
}
