package pai

import (
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// resources reads resourcePerInstance: cpu (→ millicores), memoryMB, gpu,
// and ports (label: count), then appends OpenPAI's implicit ssh and http.
func (r *v2reader) resources(role *jobs.Role, n *yaml.Node) {
	if n == nil {
		role.Ports = addImplicitPorts(nil)
		return
	}
	kvs, ok := r.mapping(n, "resourcePerInstance")
	if !ok {
		return
	}
	role.Resources.Pos = r.pos(n)
	for _, key := range []string{"cpu", "memoryMB", "gpu"} {
		if yamlpos.Get(kvs, key) == nil {
			r.Errorf(r.pos(n), "Missing resourcePerInstance."+key, "resourcePerInstance needs cpu, memoryMB and gpu (whole numbers).")
		}
	}
	var ports []jobs.Port
	for _, kv := range kvs {
		switch kv.Key {
		case "cpu", "memoryMB", "gpu":
			v, ok := r.integer(kv.Val, kv.Key)
			if !ok {
				continue
			}
			if v < 0 {
				r.Errorf(r.pos(kv.Val), "Negative "+kv.Key, "%s must not be negative; got %d.", kv.Key, v)
				continue
			}
			switch kv.Key {
			case "cpu":
				role.Resources.CPUMilli = v * 1000
			case "memoryMB":
				role.Resources.MemoryMiB = v
			case "gpu":
				role.Resources.GPU = int(v)
			}
		case "ports":
			ports = r.ports(kv.Val)
		default:
			r.Lossyf(r.pos(kv.KeyNode), "Unknown field", "%q is not a field of resourcePerInstance (cpu, memoryMB, gpu, ports).", kv.Key)
		}
	}
	role.Ports = addImplicitPorts(ports)
}

func (r *v2reader) ports(n *yaml.Node) []jobs.Port {
	kvs, ok := r.mapping(n, "ports")
	if !ok {
		return nil
	}
	if len(kvs) == 0 {
		r.Errorf(r.pos(n), "Empty ports", "ports must name at least one label, or be left out.")
	}
	var ports []jobs.Port
	for _, kv := range kvs {
		if !v2LabelRe.MatchString(kv.Key) {
			r.Errorf(r.pos(kv.KeyNode), "Invalid port label", "Port label %q may only contain letters, digits and '_', not starting with a digit.", kv.Key)
			continue
		}
		v, ok := r.integer(kv.Val, "ports."+kv.Key)
		if !ok {
			continue
		}
		if v < 0 || v > 65535 {
			r.Errorf(r.pos(kv.Val), "Invalid port count", "ports.%s is how many ports the label gets (0 to 65535); got %d.", kv.Key, v)
			continue
		}
		ports = append(ports, jobs.Port{Label: kv.Key, Count: int(v), Pos: r.pos(kv.KeyNode)})
	}
	return ports
}

// containerOptions reads extraContainerOptions: shmMB (default 512, the
// /dev/shm emptyDir size) and infiniband (→ one rdma/hca device).
func (r *v2reader) containerOptions(role *jobs.Role, n *yaml.Node) {
	if n == nil {
		return
	}
	kvs, ok := r.mapping(n, "extraContainerOptions")
	if !ok {
		return
	}
	for _, kv := range kvs {
		switch kv.Key {
		case "shmMB":
			if v, ok := r.integer(kv.Val, "shmMB"); ok {
				if v < 0 {
					r.Errorf(r.pos(kv.Val), "Negative shmMB", "shmMB must not be negative; got %d.", v)
				}
				role.Resources.ShmMiB, role.Resources.ShmSet = v, true
			}
		case "infiniband":
			v := yamlpos.Resolve(kv.Val)
			if b, isBool := yamlpos.Scalar(v).(bool); v == nil || v.Kind != yaml.ScalarNode || !isBool {
				r.Errorf(r.pos(kv.Val), "Not a boolean", "infiniband must be true or false, not %s.", kindName(kv.Val))
			} else if b {
				role.Resources.Extended = map[string]int64{"rdma/hca": 1}
			}
		default:
			r.Warnf(r.pos(kv.KeyNode), "Unknown container option ignored", "extraContainerOptions.%s is not used; OpenPAI knew shmMB and infiniband.", kv.Key)
		}
	}
}

// gangAllocation reads extras.gangAllocation first, because roles need it:
// only a literal false turns gang allocation off (k8s.js `=== false`).
func (r *v2reader) gangAllocation(extras *yaml.Node) {
	if extras == nil {
		return
	}
	kvs := yamlpos.Pairs(extras).KVs
	n := yamlpos.Get(kvs, "gangAllocation")
	if n == nil {
		return
	}
	b, isBool := yamlpos.Scalar(n).(bool)
	if n.Kind != yaml.ScalarNode || !isBool {
		r.Warnf(r.pos(n), "gangAllocation is not a boolean", "OpenPAI only turned gang allocation off for `gangAllocation: false`; %s keeps it on.", describe(n))
		return
	}
	r.gang = b
	r.job.Retry.GangAllocation = b
}

// hivedPriority is the hived scheduler's jobPriorityClass → priority map
// (spec/pai.md §2.4).
var hivedPriority = map[string]int{"crit": 120, "prod": 100, "test": 10, "oppo": -1}

// extras reads the extras OpenPAI acted on (spec/pai.md §2.4).
func (r *v2reader) extras(n *yaml.Node) {
	if n != nil {
		kvs, ok := r.mapping(n, "extras")
		if !ok {
			return
		}
		for _, kv := range kvs {
			switch kv.Key {
			case "com.microsoft.pai.runtimeplugin":
				r.runtimePlugins(kv.Val)
			case "gangAllocation", "submitFrom":
				// read before the roles / informational only
			case "hivedScheduler":
				r.hived(kv.Val)
			case "storages":
				r.storages(kv.Val)
			case "hivedscheduler":
				r.Warnf(r.pos(kv.KeyNode), "extras.hivedscheduler ignored", "OpenPAI only reads extras.hivedScheduler (capital S); this block had no effect there and is ignored here too.")
			case "jobStatusChangeNotification":
				r.Warnf(r.pos(kv.KeyNode), "Notifications not supported", "jobshift does not send OpenPAI's job status e-mails; extras.jobStatusChangeNotification is ignored.")
			default:
				r.Warnf(r.pos(kv.KeyNode), "Unknown extras key ignored", "extras.%s is not something OpenPAI or jobshift acts on.", kv.Key)
			}
		}
	}
	// Runtime plugins called through a role's prerequisites (openpai-runtime
	// initializer.py collect_plugin_configs): every key but plugin,
	// failurePolicy and type is a plugin parameter.
	for _, typ := range []string{"script", "output", "data", "dockerimage"} {
		for _, kv := range r.orderedPrereqs(typ) {
			p := kv
			if len(p.uses) == 0 {
				continue
			}
			pl, _ := p.value["plugin"].(string)
			params := map[string]any{}
			for k, v := range p.value {
				if k != "plugin" && k != "failurePolicy" && k != "type" {
					params[k] = v
				}
			}
			fp, _ := p.value["failurePolicy"].(string)
			r.job.Extras.RuntimePlugins = append(r.job.Extras.RuntimePlugins, jobs.RuntimePlugin{
				Plugin: pl[len(runtimePluginPrefix):], Parameters: params, FailurePolicy: fp, TaskRoles: p.uses, Pos: r.pos(p.node)})
		}
	}
}

// orderedPrereqs lists the prerequisites of one type in file order.
func (r *v2reader) orderedPrereqs(typ string) []*prereq {
	var out []*prereq
	for _, p := range r.prereqs[typ] {
		out = append(out, p)
	}
	for i := 1; i < len(out); i++ { // insertion sort by file position
		for j := i; j > 0 && out[j].node.Line*1e6+out[j].node.Column < out[j-1].node.Line*1e6+out[j-1].node.Column; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (r *v2reader) runtimePlugins(n *yaml.Node) {
	n = yamlpos.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		r.Errorf(r.pos(n), "Invalid runtime plugins", "extras.com.microsoft.pai.runtimeplugin must be a list of {plugin, parameters, failurePolicy, taskroles}, not %s.", kindName(n))
		return
	}
	for _, item := range n.Content {
		kvs, ok := r.mapping(item, "a runtime plugin")
		if !ok {
			continue
		}
		p := jobs.RuntimePlugin{Pos: r.pos(yamlpos.Resolve(item))}
		for _, kv := range kvs {
			switch kv.Key {
			case "plugin":
				p.Plugin, _ = r.str(kv.Val, "plugin")
			case "failurePolicy":
				if s, ok := r.str(kv.Val, "failurePolicy"); ok && s != "fail" && s != "ignore" {
					r.Warnf(r.pos(kv.Val), "Unknown failurePolicy", "failurePolicy is fail or ignore; %q is treated as fail.", s)
				} else {
					p.FailurePolicy = s
				}
			case "parameters":
				if m, ok := yamlValue(kv.Val).(map[string]any); ok {
					p.Parameters = m
				} else if yamlpos.Resolve(kv.Val).ShortTag() != "!!null" {
					r.Warnf(r.pos(kv.Val), "Plugin parameters ignored", "parameters of a runtime plugin must be a mapping, not %s.", kindName(kv.Val))
				}
			case "taskroles", "taskRoles":
				items, _ := r.stringList(kv.Val, kv.Key)
				for _, it := range items {
					if r.job.Role(it.Value) == nil {
						r.Warnf(r.pos(it), "Plugin for an unknown role", "Runtime plugin lists task role %q, which the job does not have; it is ignored for that name.", it.Value)
					}
					p.TaskRoles = append(p.TaskRoles, it.Value)
				}
			default:
				r.Warnf(r.pos(kv.KeyNode), "Unknown plugin field ignored", "%q is not a field of a runtime plugin entry.", kv.Key)
			}
		}
		if p.Plugin == "" {
			r.Errorf(p.Pos, "Runtime plugin without name", "Each runtime plugin entry needs `plugin` (ssh, tensorboard, cmd, git, teamwise_storage).")
			continue
		}
		if p.Plugin == "ssh" && p.Parameters["jobssh"] == true && !r.gang {
			r.Warnf(p.Pos, "jobssh is off without gang allocation", "OpenPAI's ssh plugin turned jobssh off when extras.gangAllocation is false (peers may not exist yet), so the <role>-<index> ssh aliases were not set up.")
		}
		r.job.Extras.RuntimePlugins = append(r.job.Extras.RuntimePlugins, p)
	}
}

// hived reads extras.hivedScheduler: jobPriorityClass → Priority, and per
// role skuType → the GPU type (and Extras.HivedSKU).
func (r *v2reader) hived(n *yaml.Node) {
	kvs, ok := r.mapping(n, "extras.hivedScheduler")
	if !ok {
		return
	}
	if pc := yamlpos.Get(kvs, "jobPriorityClass"); pc != nil && pc.ShortTag() != "!!null" {
		if s, ok := r.str(pc, "jobPriorityClass"); ok {
			r.job.PriorityClass = s
			if p, known := hivedPriority[s]; known {
				r.job.Priority = &p
			} else {
				r.Warnf(r.pos(pc), "Unknown priority class", "jobPriorityClass %q is not crit, prod, test or oppo; no priority is set.", s)
			}
		}
	}
	roles := yamlpos.Get(kvs, "taskRoles")
	if roles == nil {
		return
	}
	rkvs, ok := r.mapping(roles, "extras.hivedScheduler.taskRoles")
	if !ok {
		return
	}
	for _, rkv := range rkvs {
		role := r.job.Role(rkv.Key)
		if role == nil {
			r.Errorf(r.pos(rkv.KeyNode), "Unknown task role", "hivedScheduler configures task role %q, which the job does not have; OpenPAI refused that (\"Hived error: %s does not exist\").", rkv.Key, rkv.Key)
			continue
		}
		cfg, _ := yamlValue(rkv.Val).(map[string]any)
		sku, _ := cfg["skuType"].(string)
		if sku == "" {
			sku, _ = cfg["gpuType"].(string) // the pre-SKU name of the same setting
		}
		if sku != "" {
			if r.job.Extras.HivedSKU == nil {
				r.job.Extras.HivedSKU = map[string]string{}
			}
			r.job.Extras.HivedSKU[role.Name] = sku
			role.Resources.GPUType = sku
		}
	}
}

// storages reads extras.storages: named team storage mounted at mountPath
// (default /mnt/<name>) in every role. It is recorded as a volume; whether
// a target can provide it is the driver's decision.
func (r *v2reader) storages(n *yaml.Node) {
	n = yamlpos.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		r.Errorf(r.pos(n), "Invalid storages", "extras.storages must be a list of {name, mountPath}, not %s.", kindName(n))
		return
	}
	for _, item := range n.Content {
		kvs, ok := r.mapping(item, "a storage")
		if !ok {
			continue
		}
		name := yamlpos.Get(kvs, "name")
		if name == nil {
			r.Errorf(r.pos(item), "Storage without name", "Each extras.storages entry needs `name`.")
			continue
		}
		s, ok := r.str(name, "storage name")
		if !ok {
			continue
		}
		v := jobs.Volume{Name: s, Kind: "storage", Source: s, MountPath: "/mnt/" + s, Pos: r.pos(yamlpos.Resolve(item))}
		if mp := yamlpos.Get(kvs, "mountPath"); mp != nil {
			if p, ok := r.str(mp, "mountPath"); ok {
				v.MountPath = p
			}
		}
		for _, role := range r.job.Roles {
			role.Volumes = append(role.Volumes, v)
		}
	}
}
