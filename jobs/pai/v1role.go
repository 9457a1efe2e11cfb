package pai

import (
	"github.com/jobshift/jobshift/jobs"
)

// role reads one v1 task role. explicitMinSucceeded reports whether the role
// wrote minSucceededTaskCount itself (killAllOnCompletedTaskNumber must not
// override it).
func (r *v1reader) role(n *jnode) (role *jobs.Role, explicitMinSucceeded bool) {
	if n.Kind != jObject {
		r.Errorf(n.Pos, "Task role is not an object", "Each taskRoles entry must be an object with name, command and resources, not %s.", n.Kind)
		return nil, false
	}
	r.unknownKeys(n, v1RoleKeys, "a v1 task role")
	one := 1
	role = &jobs.Role{
		Pos:       n.Pos,
		Instances: 1,
		MinFailed: &one,
		Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 100, ShmMiB: 64, Pos: n.Pos},
	}
	if nn := n.get("name"); nn == nil {
		r.Errorf(n.Pos, "Task role without name", "Every task role needs a \"name\" (letters, digits, '.', '_', '~').")
	} else if s, ok := r.stringValue(nn, "name", false); ok {
		role.Name, role.Pos = s, nn.Pos
		switch {
		case v1RoleNameRe.MatchString(s):
			if !shellNameRe.MatchString(s) {
				r.Warnf(nn.Pos, "Role name is not a shell identifier", "OpenPAI accepts %q, but the variables named after it (PAI_TASK_ROLE_%s_HOST_LIST ...) cannot be read with $NAME in a shell. Prefer letters, digits and '_'.", s, s)
			}
		case v1RoleNameOldRe.MatchString(s):
			r.Warnf(nn.Pos, "'-' in task role name", "Only OpenPAI v0.4 accepted '-' in a task role name (v0.5+ refuse it), and variables named after %q cannot be read with $NAME in a shell. Rename the role, e.g. with '_'.", s)
		default:
			r.Errorf(nn.Pos, "Invalid task role name", "Task role name %q may only contain letters, digits, '.', '_' and '~'.", s)
		}
	}
	intField := func(key string, dst *int64, min int64, what string) (jobs.Pos, bool) {
		f := n.get(key)
		if f == nil {
			return jobs.Pos{}, false
		}
		v, ok := r.intValue(f, key)
		if !ok {
			return f.Pos, false
		}
		if v < min {
			r.Errorf(f.Pos, "Invalid "+key, "%s must be at least %d (%s); got %d.", key, min, what, v)
			return f.Pos, false
		}
		*dst = v
		return f.Pos, true
	}
	var tmp int64
	if p, ok := intField("taskNumber", &tmp, 0, "the number of instances"); ok {
		role.Instances, role.InstancesPos = int(tmp), p
	}
	if _, ok := intField("cpuNumber", &tmp, 0, "CPUs per instance"); ok {
		role.Resources.CPUMilli = tmp * 1000
	}
	intField("memoryMB", &role.Resources.MemoryMiB, 0, "MiB per instance")
	if p, ok := intField("shmMB", &role.Resources.ShmMiB, 0, "MiB of /dev/shm"); ok {
		role.Resources.ShmSet = true
		if role.Resources.ShmMiB > role.Resources.MemoryMiB {
			r.Errorf(p, "shmMB larger than memoryMB", "shmMB (%d) must not exceed memoryMB (%d); /dev/shm counts against the container's memory.", role.Resources.ShmMiB, role.Resources.MemoryMiB)
		}
	}
	if _, ok := intField("gpuNumber", &tmp, 0, "GPUs per instance"); ok {
		role.Resources.GPU = int(tmp)
	}
	if c := n.get("command"); c == nil {
		r.Errorf(n.Pos, "Task role without command", "Task role %q needs a \"command\": one bash command line.", role.Name)
	} else if s, ok := r.stringValue(c, "command", false); ok {
		role.Command = jobs.Command{Kind: jobs.CommandEval, Script: s, Pos: c.Pos}
	}
	role.MinFailed, role.MinFailedPos = r.minCount(n, "minFailedTaskCount", role, role.MinFailed)
	role.MinSucceeded, role.MinSucceededPos = r.minCount(n, "minSucceededTaskCount", role, nil)
	r.checkMinTaskNumber(role)
	role.Ports = r.ports(n.get("portList"))
	return role, n.get("minSucceededTaskCount") != nil
}

// minCount reads minFailedTaskCount / minSucceededTaskCount (v0.7+): an
// integer ≥ 1 or null (rule disabled).
func (r *v1reader) minCount(n *jnode, key string, role *jobs.Role, def *int) (*int, jobs.Pos) {
	f := n.get(key)
	if f == nil {
		return def, jobs.Pos{}
	}
	if f.Kind == jNull {
		return nil, f.Pos
	}
	v, ok := r.intValue(f, key)
	if !ok {
		return def, f.Pos
	}
	if v < 1 {
		r.Errorf(f.Pos, "Invalid "+key, "%s must be null (rule off) or at least 1; got %d.", key, v)
		return def, f.Pos
	}
	i := int(v)
	return &i, f.Pos
}

// ports reads portList and adds the labels OpenPAI always added when
// missing: ssh and http, one port each, after the user's labels (the order
// PAI_CONTAINER_HOST_PORT_LIST lists them in, spec/pai.md §3.1.3).
func (r *v1reader) ports(n *jnode) []jobs.Port {
	var ports []jobs.Port
	if n != nil && n.Kind != jArray {
		r.Errorf(n.Pos, "portList is not an array", "portList must be an array of {label, beginAt, portNumber} objects, not %s.", n.Kind)
		n = nil
	}
	if n != nil {
		for _, pn := range n.Elems {
			if pn.Kind != jObject {
				r.Errorf(pn.Pos, "Port is not an object", "Each portList entry must be an object {label, beginAt, portNumber}, not %s.", pn.Kind)
				continue
			}
			r.unknownKeys(pn, v1PortKeys, "a portList entry")
			p := jobs.Port{Count: 1, Pos: pn.Pos}
			if l := pn.get("label"); l == nil {
				r.Errorf(pn.Pos, "Port without label", "Each portList entry needs a \"label\".")
				continue
			} else if s, ok := r.stringValue(l, "label", false); !ok {
				continue
			} else if !v1LabelRe.MatchString(s) {
				r.Errorf(l.Pos, "Invalid port label", "Port label %q may only contain letters, digits, '.', '_' and '~'.", s)
				continue
			} else {
				p.Label = s
			}
			if b := pn.get("beginAt"); b != nil {
				if v, ok := r.intValue(b, "beginAt"); ok {
					if v < 0 || v > 65535 {
						r.Errorf(b.Pos, "Invalid beginAt", "beginAt must be 0 (any free port) or a port number up to 65535; got %d.", v)
					}
					p.BeginAt = int(v)
				}
			}
			if c := pn.get("portNumber"); c != nil {
				if v, ok := r.intValue(c, "portNumber"); ok {
					if v < 0 || v > 65535 {
						r.Errorf(c.Pos, "Invalid portNumber", "portNumber is how many ports the label gets (0 to 65535); got %d.", v)
					}
					p.Count = int(v)
				}
			}
			if p.BeginAt > 0 && p.BeginAt+p.Count-1 > 65535 {
				r.Errorf(pn.Pos, "Port range too high", "Ports %d..%d go past 65535.", p.BeginAt, p.BeginAt+p.Count-1)
			}
			replaced := false
			for i := range ports {
				if ports[i].Label == p.Label {
					r.Warnf(pn.Pos, "Duplicate port label", "Label %q is listed twice; OpenPAI kept the last entry, and so does jobshift.", p.Label)
					ports[i], replaced = p, true
				}
			}
			if !replaced {
				ports = append(ports, p)
			}
		}
	}
	return addImplicitPorts(ports)
}

// addImplicitPorts appends ssh then http (one port each, Implicit) when the
// user did not declare them.
func addImplicitPorts(ports []jobs.Port) []jobs.Port {
	for _, label := range []string{"ssh", "http"} {
		found := false
		for _, p := range ports {
			found = found || p.Label == label
		}
		if !found {
			ports = append(ports, jobs.Port{Label: label, Count: 1, Implicit: true})
		}
	}
	return ports
}

// checkMinTaskNumber is the rest-server's check (middlewares/job.js), run on
// the body after Joi applied its defaults: a minFailedTaskCount or
// minSucceededTaskCount above taskNumber was refused. So a role with
// taskNumber 0 was refused too, unless it set minFailedTaskCount to null.
func (r *v1reader) checkMinTaskNumber(role *jobs.Role) {
	check := func(key string, v *int, at jobs.Pos) {
		if v == nil || *v <= role.Instances {
			return
		}
		how := ""
		if at.IsZero() {
			how, at = " by default", role.InstancesPos
			if at.IsZero() {
				at = role.Pos
			}
		}
		r.Errorf(at, key+" larger than taskNumber", "%s is %d%s, more than role %q's taskNumber %d; OpenPAI refused such jobs because the rule could never fire.", key, *v, how, role.Name, role.Instances)
	}
	check("minFailedTaskCount", role.MinFailed, role.MinFailedPos)
	check("minSucceededTaskCount", role.MinSucceeded, role.MinSucceededPos)
	if role.Instances == 0 && role.MinFailed == nil {
		r.Warnf(role.InstancesPos, "Task role with no instances", "taskNumber is 0, so role %q runs no task.", role.Name)
	}
}
