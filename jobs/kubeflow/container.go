package kubeflow

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// containerInfo is what the volume pass needs from the container pass.
type containerInfo struct {
	where  string
	mounts []*yaml.Node
	texts  []string // command, args, workingDir, env values: where paths show up
}

// uses reports whether a path under mountPath appears in the container's
// command, args, working directory or env values.
func (c *containerInfo) uses(mountPath string) bool {
	mp := strings.TrimRight(mountPath, "/")
	if mp == "" {
		return true // a mount at / is used by everything
	}
	for _, t := range c.texts {
		for i := strings.Index(t, mp); i >= 0; {
			end := i + len(mp)
			if (i == 0 || !isPathByte(t[i-1])) && (end == len(t) || t[end] == '/' || !isPathByte(t[end])) {
				return true
			}
			j := strings.Index(t[i+1:], mp)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return false
}

func isPathByte(b byte) bool {
	return b == '/' || b == '.' || b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// container reads the main container into role.
func (r *reader) container(role *jobs.Role, n *yaml.Node, fl *flavour, where string, contractPort *jobs.Port) *containerInfo {
	c := r.mapOf(n, where)
	c.ignore("name")
	c.ignore(containerFieldsSilent...)
	info := &containerInfo{where: where}

	imgNode := c.get("image")
	role.Image, _ = r.str(imgNode, where+".image")
	role.ImagePos = r.pos(imgNode)
	switch {
	case role.Image == "":
		r.errorf(n, "Missing image", "%s has no image; Kubeflow and Kubernetes require one. Add image: <registry>/<name>:<tag>.", where)
	case placeholder.MatchString(role.Image):
		r.warnf(imgNode, "Image looks like a placeholder", "The image %q contains a template placeholder; render the template first or it will not pull.", role.Image)
	}

	env, secretVars := r.env(role, c, fl, where)
	// The operator appends its variables after the user's env, so for
	// command and args their names resolve to the operator's values, which
	// are only known at run time. A Secret's value is never put into a
	// command line (argv is world-readable and lands in artifacts).
	var secretRefs []string
	lookup := func(name string) (string, bool) {
		if fl.ownsEnv(name) {
			return "", false
		}
		if secretVars[name] {
			secretRefs = append(secretRefs, name)
			return "", false
		}
		v, ok := env[name]
		return v, ok
	}

	cmdF, argF := c.field("command"), c.field("args")
	role.Command = jobs.Command{Kind: jobs.CommandArgv}
	switch {
	case cmdF.key != nil:
		role.Command.Pos = r.pos(cmdF.key)
	case argF.key != nil:
		role.Command.Pos = r.pos(argF.key)
	default:
		role.Command.Pos = r.pos(n)
	}
	fields := map[string]bool{}
	for _, e := range role.Env {
		fields[e.Name] = e.FieldPath != ""
	}
	role.Command.Command = r.expandAll(r.strList(cmdF.val, where+".command"), lookup, fl, fields, cmdF.key)
	role.Command.Args = r.expandAll(r.strList(argF.val, where+".args"), lookup, fl, fields, argF.key)
	if len(secretRefs) > 0 {
		at := cmdF.key
		if at == nil {
			at = argF.key
		}
		r.errorf(at, "Secret in the command line", "The command or args of %s refer to $(%s), whose value comes from a Secret; Kubernetes would expand it into the command line, which jobshift's artifacts and every process listing would show. Read the variable in the program (or in sh -c '... $%s ...') instead.", where, secretRefs[0], secretRefs[0])
	}
	if wd := c.get("workingDir"); wd != nil {
		role.WorkingDir, _ = r.str(wd, where+".workingDir")
	}
	info.texts = append(info.texts, role.Command.Command...)
	info.texts = append(info.texts, role.Command.Args...)
	info.texts = append(info.texts, role.WorkingDir)
	for _, e := range role.Env {
		if !e.Secret {
			info.texts = append(info.texts, e.Value)
		}
	}

	r.resources(role, c.field("resources"), where)
	r.ports(role, c.get("ports"), fl, where, contractPort)
	info.mounts = r.seq(c.get("volumeMounts"), where+".volumeMounts")

	if lc := c.field("lifecycle"); lc.val != nil {
		l := r.mapOf(lc.val, where+".lifecycle")
		if ps := l.field("postStart"); ps.val != nil {
			r.lossyf(ps.key, "postStart hook dropped", "%s.lifecycle.postStart runs a command when the container starts; jobshift cannot run it. Fold it into the main command.", where)
		}
		if ps := l.field("preStop"); ps.val != nil {
			r.warnf(ps.key, "preStop hook dropped", "%s.lifecycle.preStop only runs when Kubernetes stops the container; jobshift drops it.", where)
		}
		l.ignore("stopSignal")
		l.warnUnknown()
	}
	if vd := c.field("volumeDevices"); vd.val != nil && !isFalse(vd.val) {
		r.lossyf(vd.key, "Block device dropped", "%s.volumeDevices attaches raw block devices; jobshift cannot provide them.", where)
	}
	for _, f := range c.fields {
		if why, ok := containerFieldWarnings[f.key.Value]; ok {
			c.used[f.key.Value] = true
			if isFalse(f.val) {
				continue
			}
			r.warnf(f.key, "Container setting ignored: "+f.key.Value, "%s.%s is ignored: %s.", where, f.key.Value, why)
		}
	}
	c.warnUnknown()
	return info
}

// expandAll applies the kubelet's $(VAR) expansion to command or args. A
// reference to a variable the operator injects (TF_CONFIG, RANK, ...)
// cannot be expanded before run time: error unless -lossy, which keeps the
// text literally.
func (r *reader) expandAll(list []string, lookup func(string) (string, bool), fl *flavour, fields map[string]bool, at *yaml.Node) []string {
	for i, s := range list {
		v, unresolved := expand(s, lookup)
		r.refersToField(at, s, unresolved, fields)
		for _, name := range unresolved {
			if fl.ownsEnv(name) {
				r.lossyf(at, "Reference to an operator variable", "$(%s) in %q is expanded by Kubernetes from the variable the operator injects; jobshift does not expand it before the task starts. Use a shell (sh -c '... $%s ...') instead.", name, s, name)
			}
		}
		list[i] = v
	}
	return list
}

// expand is Kubernetes' $(VAR) expansion (third_party/forked/golang/expansion):
// $(NAME) becomes the value when NAME is defined and stays as written
// otherwise; $$ becomes $; any other $ is kept. It also returns the
// undefined names that were referenced.
func expand(s string, lookup func(string) (string, bool)) (string, []string) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	var unresolved []string
	checkpoint := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		b.WriteString(s[checkpoint:i])
		rest := s[i+1:]
		advance := 1
		switch rest[0] {
		case '$':
			b.WriteByte('$')
		case '(':
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				b.WriteString("$(")
				break
			}
			name := rest[1:end]
			if v, ok := lookup(name); ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
				unresolved = append(unresolved, name)
			}
			advance = end + 1
		default:
			b.WriteByte('$')
			b.WriteByte(rest[0])
		}
		i += advance
		checkpoint = i + 1
	}
	b.WriteString(s[checkpoint:])
	return b.String(), unresolved
}

// quantity reads a Kubernetes quantity (a number or a string).
func (r *reader) quantity(n *yaml.Node, where string) (*big.Rat, bool) {
	n = deref(n)
	if isNull(n) {
		return nil, false
	}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!str" || n.Tag == "!!int" || n.Tag == "!!float") {
		if q, err := ParseQuantity(n.Value); err == nil {
			if q.Sign() < 0 {
				r.errorf(n, "Negative quantity", "%s is negative (%s); Kubernetes rejects negative resources.", where, n.Value)
				return nil, false
			}
			return q, true
		}
	}
	r.errorf(n, "Invalid quantity", "%s is %s, which is not a Kubernetes quantity; write for example 500m or 2 (CPU), 4Gi or 1000M (memory), 1 (GPUs).", where, describe(n))
	return nil, false
}

// resources reads resources.limits / requests: per resource the limit, or
// else the request (what the container is guaranteed). CPU is rounded up to
// millicores, memory up to MiB. nvidia.com/gpu and amd.com/gpu are GPUs;
// other nvidia.com/<model> names (nvidia.com/a40, MIG slices) count as GPUs
// of that type; every other resource goes to Extended in its base unit.
func (r *reader) resources(role *jobs.Role, f field, where string) {
	if f.val == nil {
		return
	}
	role.Resources.Pos = r.pos(f.key)
	res := r.mapOf(f.val, where+".resources")
	limits := r.mapOf(res.get("limits"), where+".resources.limits")
	requests := r.mapOf(res.get("requests"), where+".resources.requests")
	res.ignore("claims")
	res.warnUnknown()
	var names []string
	seen := map[string]bool{}
	for _, m := range []*mapping{limits, requests} {
		for _, fl := range m.fields {
			if !seen[fl.key.Value] {
				seen[fl.key.Value] = true
				names = append(names, fl.key.Value)
			}
		}
	}
	for _, name := range names {
		// Both values are checked (Kubernetes rejects a bad request even
		// when a limit is given); the limit is used when it is valid.
		var q *big.Rat
		var vn *yaml.Node
		for _, src := range []struct {
			m     *mapping
			which string
		}{{requests, "requests"}, {limits, "limits"}} {
			if n := src.m.get(name); n != nil {
				if v, ok := r.quantity(n, fmt.Sprintf("%s.resources.%s[%s]", where, src.which, name)); ok {
					q, vn = v, n
				}
			}
		}
		if q == nil {
			continue
		}
		ok := true
		switch {
		case name == "cpu":
			role.Resources.CPUMilli, ok = ceilInt64(q, scaleMilli)
		case name == "memory":
			role.Resources.MemoryMiB, ok = ceilInt64(q, scaleMiB)
		case name == "nvidia.com/gpu" || name == "amd.com/gpu" || strings.HasPrefix(name, "nvidia.com/"):
			var count int64
			count, ok = ceilInt64(q, scaleOne)
			gpuType := name
			if name == "nvidia.com/gpu" {
				gpuType = ""
			}
			switch {
			case !ok:
			case role.Resources.GPU != 0 && role.Resources.GPUType != gpuType:
				r.warnf(vn, "Second GPU resource", "%s asks for GPUs of two kinds (%q and %q); jobshift counts the first as GPUs and keeps %s as an extended resource.", where, role.Resources.GPUType, name, name)
				r.extended(role, name, count)
			default:
				if gpuType != "" && gpuType != "amd.com/gpu" {
					r.warnf(vn, "Vendor GPU resource", "%s is counted as %d GPU(s) of type %q; map that type to the target's GPUs with a gpu_type rule in jobshift.hcl.", name, count, name)
				}
				role.Resources.GPU, role.Resources.GPUType = int(count), gpuType
			}
		default:
			var v int64
			if v, ok = ceilInt64(q, scaleOne); ok {
				r.extended(role, name, v)
			}
		}
		if !ok {
			r.errorf(vn, "Quantity too large", "The %s quantity %s is too large.", name, scalar(vn))
		}
	}
}

func (r *reader) extended(role *jobs.Role, name string, v int64) {
	if role.Resources.Extended == nil {
		role.Resources.Extended = map[string]int64{}
	}
	role.Resources.Extended[name] = v
}

// ports reads containerPorts. The operator's named port (tfjob-port,
// pytorchjob-port) is the one the contract uses; when the container lacks
// it the operator appends the default (Implicit). Other ports are kept with
// their name (or "port-<number>") as label.
func (r *reader) ports(role *jobs.Role, n *yaml.Node, fl *flavour, where string, contractPort *jobs.Port) {
	found := false
	for i, pn := range r.seq(n, where+".ports") {
		w := fmt.Sprintf("%s.ports[%d]", where, i)
		p := r.mapOf(pn, w)
		name, _ := r.str(p.get("name"), w+".name")
		num, ok := r.integer(p.get("containerPort"), w+".containerPort")
		if !ok {
			r.errorf(pn, "Missing containerPort", "%s needs a containerPort between 1 and 65535; Kubernetes rejects it otherwise.", w)
			continue
		}
		if num < 1 || num > 65535 {
			r.errorf(p.get("containerPort"), "Port out of range", "%s.containerPort %d is not between 1 and 65535.", w, num)
			continue
		}
		if hp := p.field("hostPort"); hp.val != nil {
			r.warnf(hp.key, "hostPort ignored", "%s.hostPort is ignored; jobshift allocates the port on the target and passes it through the contract.", w)
		}
		p.ignore("protocol", "hostIP")
		p.warnUnknown()
		if contractPort != nil && name == "" && int(num) == contractPort.Number {
			continue // the replica's own port, declared again on the container
		}
		label := name
		if name == fl.portName && fl.portName != "" {
			if contractPort != nil {
				r.warnf(pn, "Port replaced by "+fl.portName, "This version declares the replica port in the replica spec (%d); the container's %s is ignored.", contractPort.Number, fl.portName)
				continue
			}
			found = true
		} else if label == "" {
			label = fmt.Sprintf("port-%d", num)
		}
		role.Ports = append(role.Ports, jobs.Port{Label: label, Count: 1, Number: int(num), Pos: r.pos(pn)})
	}
	switch {
	case contractPort != nil:
		role.Ports = append(role.Ports, *contractPort)
	case !found && fl.portName != "":
		role.Ports = append(role.Ports, jobs.Port{Label: fl.portName, Count: 1, Number: fl.defaultPort, Implicit: true})
	}
}
