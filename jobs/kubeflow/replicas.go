package kubeflow

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// replicaSet describes the map form of replica specs (TFJob v1alpha2 … v1,
// PyTorchJob v1alpha2 … v1): the field name, the canonical type names by
// lower-cased key, and what happens to other keys.
type replicaSet struct {
	field          string            // "tfReplicaSpecs" / "pytorchReplicaSpecs"
	canonical      map[string]string // lower-cased key → canonical type
	unknownIsError bool              // PyTorch's webhook rejects other keys; TFJob's does not
	defaultRestart string            // restartPolicy default of the kind
	typeRestart    map[string]string // per-type defaults (MPIJob Launcher), by lower-cased type
	fl             *flavour
	clusterVar     string // the variable listing every type when unknown types are accepted ("" = TF_CONFIG)
	// exactKeys names the webhook that compares keys with the canonical
	// types case-sensitively (training-operator v1.9.0's XGBoostJob,
	// PaddleJob and JAXJob webhooks: slices.Contains); "" = keys match
	// without regard to case (the controller's setTypeNameToCamelCase).
	exactKeys string
	// variantWins are the types (lower-cased) whose key, written in
	// another case, replaces the canonical key's spec, as
	// setTypeNameToCamelCase did (MXJob @v1.8.1, which validated no type
	// name before defaulting, renamed Scheduler, Server and Worker); other
	// same-type pairs are refused.
	variantWins map[string]bool
}

// replicaSpecFields are the keys of a ReplicaSpec; finding one directly
// under the replica map means the user forgot the replica type key.
var replicaSpecFields = map[string]bool{"replicas": true, "template": true, "restartPolicy": true}

// replicaMap reads the map form. Keys match the canonical types without
// regard to case (the operator's setTypeNameToCamelCase); roles are named by
// the lower-cased type, as in pod names and TF_CONFIG, in file order.
func (r *reader) replicaMap(job *jobs.Job, spec *mapping, rs *replicaSet) {
	f := spec.field(rs.field)
	if isNull(f.val) {
		at := f.key
		if at == nil {
			at = spec.node
		}
		r.errorf(at, "Missing "+rs.field, "spec.%s is required: it maps replica types (%s) to replica specs.", rs.field, typeList(rs.canonical))
		return
	}
	m := r.mapOf(f.val, "spec."+rs.field)
	var misplaced []string
	for _, fl := range m.fields {
		if replicaSpecFields[fl.key.Value] {
			misplaced = append(misplaced, fl.key.Value)
		}
	}
	if len(misplaced) > 0 {
		r.errorf(f.key, "Replica type missing", "spec.%s maps a replica type (%s) to a replica spec, but here it holds replica-spec fields (%s) directly, so the operator sees no valid replica. Indent them under a type, for example `Worker:`.", rs.field, typeList(rs.canonical), strings.Join(misplaced, ", "))
	}
	seen := map[string]*yaml.Node{}
	for _, fl := range m.fields {
		key := fl.key.Value
		if replicaSpecFields[key] {
			continue
		}
		canon, known := rs.canonical[strings.ToLower(key)]
		if known && rs.exactKeys != "" && key != canon {
			r.errorf(fl.key, "Replica type in the wrong case", "%q is not a replica type of this kind: the operator's webhook compares replica types exactly (%s) and rejects the job (\"Unsupported value\"); write %s.", key, rs.exactKeys, canon)
			continue
		}
		if !known {
			if rs.unknownIsError {
				r.errorf(fl.key, "Unknown replica type", "%q is not a replica type of this kind; use one of %s. The operator rejects the job.", key, typeList(rs.canonical))
				continue
			}
			canon = key
			cv := rs.clusterVar
			if cv == "" {
				cv = "TF_CONFIG"
			}
			r.warnf(fl.key, "Unknown replica type", "%q is not one of %s. Kubeflow accepts it and lists it as %q in %s; check the spelling.", key, typeList(rs.canonical), strings.ToLower(key), cv)
		}
		name := strings.ToLower(canon)
		replace := -1
		if prev, dup := seen[name]; dup {
			if !rs.variantWins[name] || (prev.Value == canon) == (key == canon) {
				r.errorf(fl.key, "Replica type given twice", "%q and %q (line %d) are the same replica type once case is ignored; the operator keeps only one. Merge them.", key, prev.Value, prev.Line)
				continue
			}
			variant, dropped := key, prev
			if key == canon {
				variant, dropped = prev.Value, fl.key
			}
			r.warnf(fl.key, "Replica type given twice", "%q and %q (line %d) are the same replica type once case is ignored; the operator renamed %q to %s over the other, so %q (line %d) is ignored. Merge them.", key, prev.Value, prev.Line, variant, canon, dropped.Value, dropped.Line)
			if key == canon {
				continue
			}
			replace = roleIndexOf(job, name)
		}
		seen[name] = fl.key
		role := newRole(name, r.pos(fl.key))
		where := fmt.Sprintf("spec.%s.%s", rs.field, key)
		spec := r.mapOf(fl.val, where)
		r.instances(role, spec.field("replicas"), where)
		role.RestartPolicy = rs.defaultRestart
		if d, ok := rs.typeRestart[name]; ok {
			role.RestartPolicy = d
		}
		if rp := spec.get("restartPolicy"); rp != nil {
			if v, ok := r.restartPolicy(rp, where+".restartPolicy", true); ok {
				role.RestartPolicy = v
			}
		}
		tmpl := spec.field("template")
		if tmpl.val == nil {
			r.errorf(fl.key, "Missing template", "%s has no template; add template.spec.containers with a container%s.", where, containerHint(rs.fl))
		} else if tr := r.podTemplate(role, tmpl.val, rs.fl, where+".template", nil); tr != nil {
			r.warnf(tr, "Template restartPolicy ignored", "The replica's restartPolicy (%s) overrides the pod template's; the operator ignores this one. Set restartPolicy on the replica spec instead.", role.RestartPolicy)
		}
		if lf := spec.field("tfReplicaType"); lf.val != nil {
			spec.used["tfReplicaType"] = true
			r.warnf(lf.key, "Leftover v1alpha1 field", "tfReplicaType belongs to the v1alpha1 list form; in %s the map key (%s) is the type. Remove it.", job.Source.Version, key)
		}
		spec.warnUnknown()
		if replace >= 0 {
			job.Roles[replace] = role
			continue
		}
		job.Roles = append(job.Roles, role)
	}
	if len(job.Roles) == 0 && len(misplaced) == 0 {
		r.errorf(f.key, "No replicas", "spec.%s has no replica types; add at least one of %s.", rs.field, typeList(rs.canonical))
	}
}

// roleIndexOf is the position of the role named name, or -1.
func roleIndexOf(job *jobs.Job, name string) int {
	for k, r := range job.Roles {
		if r.Name == name {
			return k
		}
	}
	return -1
}

func typeList(canon map[string]string) string {
	order := []string{"launcher", "chief", "master", "ps", "worker", "evaluator", "scheduler", "server", "tunertracker", "tunerserver", "tuner"}
	var out []string
	for _, k := range order {
		if v, ok := canon[k]; ok {
			out = append(out, v)
		}
	}
	return strings.Join(out, ", ")
}

// instances reads replicas (default 1, as every operator defaults it).
func (r *reader) instances(role *jobs.Role, f field, where string) {
	if f.val == nil {
		return
	}
	role.InstancesPos = r.pos(f.val)
	if v, ok := r.nonNegative(f.val, where+".replicas"); ok {
		if v > 100000 {
			r.errorf(f.val, "Too many replicas", "%s.replicas is %d; jobshift accepts at most 100000 tasks per role.", where, v)
			return
		}
		role.Instances = int(v)
		if v == 0 {
			r.warnf(f.val, "No instances", "%s.replicas is 0: this replica type starts no task.", where)
		}
	}
}

// restartPolicy validates a restart policy. ExitCode exists only at the
// replica level (the operator turns it into pod policy Never).
func (r *reader) restartPolicy(n *yaml.Node, where string, replicaLevel bool) (string, bool) {
	v, ok := r.str(n, where)
	if !ok {
		return "", false
	}
	switch v {
	case "Never", "OnFailure", "Always":
		return v, true
	case "ExitCode":
		if replicaLevel {
			return v, true
		}
	}
	allowed := "Never, OnFailure, Always"
	if replicaLevel {
		allowed += ", ExitCode"
	}
	r.errorf(n, "Invalid restartPolicy", "%s is %q; it must be one of %s.", where, v, allowed)
	return "", false
}

// newRole starts a role with the defaults every version shares: one
// instance, an argv command (empty = the image's ENTRYPOINT and CMD).
func newRole(name string, pos jobs.Pos) *jobs.Role {
	return &jobs.Role{Name: name, ReplicaType: name, Pos: pos, Instances: 1, Command: jobs.Command{Kind: jobs.CommandArgv, Pos: pos}}
}

// containerHint names the container the operator looks for, if any.
func containerHint(fl *flavour) string {
	if fl.container == "" {
		return " (the first one is used)"
	}
	return fmt.Sprintf(" named %q", fl.container)
}
