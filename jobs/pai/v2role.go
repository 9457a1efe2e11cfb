package pai

import (
	"regexp"
	"sort"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

var v2RoleKeys = map[string]bool{
	"protocolVersion": true, "instances": true, "completion": true, "taskRetryCount": true,
	"dockerImage": true, "data": true, "output": true, "script": true, "extraContainerOptions": true,
	"resourcePerInstance": true, "commands": true, "prerequisites": true,
}

var (
	nonAlnumLower = regexp.MustCompile(`[^a-z0-9]`)
)

// convertName is the rest-server's FrameworkController role name
// (k8s.js convertName): the name the runtime's variables use.
func convertName(role string) string {
	return nonAlnumLower.ReplaceAllString(strings.ToLower(role), "")
}

func (r *v2reader) taskRoles(root, n *yaml.Node) {
	if n == nil {
		r.Errorf(r.pos(root), "Missing taskRoles", "An OpenPAI v2 job needs `taskRoles` with at least one task role.")
		return
	}
	kvs, ok := r.mapping(n, "taskRoles")
	if !ok {
		return
	}
	if len(kvs) == 0 {
		r.Errorf(r.pos(n), "No task roles", "taskRoles must hold at least one task role.")
	}
	converted := map[string]string{}
	for _, kv := range kvs {
		if !v2RoleRe.MatchString(kv.Key) {
			r.Errorf(r.pos(kv.KeyNode), "Invalid task role name", "%q is not a valid task role name: letters, digits and '_', not starting with a digit.", kv.Key)
			continue
		}
		c := convertName(kv.Key)
		if other, dup := converted[c]; dup {
			r.Errorf(r.pos(kv.KeyNode), "Task role names collide", "OpenPAI's runtime names roles %q and %q both %q (lower case, letters and digits only), so their variables would clash. Rename one.", other, kv.Key, c)
		} else if c != kv.Key {
			r.Warnf(r.pos(kv.KeyNode), "Role name changes at run time", "OpenPAI's runtime variables spell role %q as %q (PAI_TASK_ROLE_%s_HOST_LIST, PAI_HOST_IP_%s_0 ...), while PAI_TASK_ROLE_TASK_COUNT_%s keeps the name; jobshift reproduces both. Prefer a lower-case name of letters and digits.", kv.Key, c, c, c, kv.Key)
		}
		converted[c] = kv.Key
		if role := r.role(kv); role != nil {
			r.job.Roles = append(r.job.Roles, role)
		}
	}
	var unknown []yamlpos.KV
	for _, d := range r.deploy {
		if r.job.Role(d.Key) == nil {
			unknown = append(unknown, d)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		a, b := unknown[i].KeyNode, unknown[j].KeyNode
		return a.Line*1e6+a.Column < b.Line*1e6+b.Column
	})
	for _, d := range unknown {
		{
			r.Warnf(r.pos(d.KeyNode), "Deployment for an unknown role", "The default deployment has commands for task role %q, which the job does not have; OpenPAI ignored them.", d.Key)
		}
	}
}

func (r *v2reader) role(kv yamlpos.KV) *jobs.Role {
	kvs, ok := r.mapping(kv.Val, "task role "+kv.Key)
	if !ok {
		return nil
	}
	r.unknown(kvs, v2RoleKeys, "a task role")
	node := yamlpos.Resolve(kv.Val)
	role := &jobs.Role{Name: kv.Key, Pos: r.pos(kv.KeyNode), Instances: 1,
		Resources: jobs.Resources{ShmMiB: 512, Pos: r.pos(node)}}
	for _, key := range []string{"dockerImage", "resourcePerInstance", "commands"} {
		if yamlpos.Get(kvs, key) == nil {
			r.Errorf(r.pos(kv.KeyNode), "Missing "+key, "Task role %q needs %q.", kv.Key, key)
		}
	}
	if n := yamlpos.Get(kvs, "protocolVersion"); n != nil {
		r.protocolVersion(n)
	}
	if n := yamlpos.Get(kvs, "instances"); n != nil {
		if v, ok := r.integer(n, "instances"); ok {
			if v < 1 {
				r.Errorf(r.pos(n), "Invalid instances", "instances must be at least 1; got %d.", v)
			}
			role.Instances, role.InstancesPos = int(v), r.pos(n)
		}
	}
	r.completion(role, yamlpos.Get(kvs, "completion"))
	if n := yamlpos.Get(kvs, "taskRetryCount"); n != nil {
		if v, ok := r.integer(n, "taskRetryCount"); ok {
			role.TaskRetryCount = int(v)
			if v != 0 && r.gang {
				r.Warnf(r.pos(n), "taskRetryCount has no effect", "OpenPAI only retries single tasks when `extras.gangAllocation: false`; with gang allocation (the default) a failure retries the whole job (issues #5004, #3781). Set gangAllocation to false if you want task retries.")
			}
		}
	}
	ctx := map[string]any{"$parameters": nilIfEmpty(r.params)}
	if n := yamlpos.Get(kvs, "dockerImage"); n != nil {
		if p := r.reference(n, "dockerimage", "dockerImage"); p != nil {
			r.image(role, p)
		}
	}
	for _, field := range []string{"data", "output", "script"} {
		if n := yamlpos.Get(kvs, field); n != nil {
			if p := r.reference(n, field, field); p != nil {
				ctx["$"+field] = p.value
			}
		}
	}
	if n := yamlpos.Get(kvs, "prerequisites"); n != nil {
		r.rolePrereqs(role, n)
	}
	r.containerOptions(role, yamlpos.Get(kvs, "extraContainerOptions"))
	r.resources(role, yamlpos.Get(kvs, "resourcePerInstance"))
	if n := yamlpos.Get(kvs, "commands"); n != nil {
		if items, ok := r.stringList(n, "commands"); ok {
			if script, unresolved, ok := r.entrypoint(kv.Key, items, ctx); ok {
				role.Command = jobs.Command{Kind: jobs.CommandBashScript, Script: script, Pos: r.pos(n)}
				r.checkLeftovers(unresolved, r.pos(n), kv.Key)
			}
		}
	}
	return role
}

// nilIfEmpty keeps an absent parameters object undefined for the renderer.
func nilIfEmpty(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// completion applies the k8s-era defaults (k8s.js): a falsy (absent, null,
// 0) minFailedInstances is 1 and a falsy minSucceededInstances is the
// instance count; -1 is kept and disables the rule.
func (r *v2reader) completion(role *jobs.Role, n *yaml.Node) {
	read := func(kvs []yamlpos.KV, key string) (int, jobs.Pos) {
		v := yamlpos.Get(kvs, key)
		if v == nil {
			return 0, jobs.Pos{}
		}
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			return 0, r.pos(v)
		}
		i, ok := r.integer(v, "completion."+key)
		if !ok {
			return 0, r.pos(v)
		}
		if i < -1 {
			r.Errorf(r.pos(v), "Invalid completion."+key, "%s must be -1 (rule off) or at least 1; got %d.", key, i)
		} else if i > int64(role.Instances) {
			r.Warnf(r.pos(v), key+" above instances", "%s is %d but role %q has %d instances, so this rule can never fire.", key, i, role.Name, role.Instances)
		}
		return int(i), r.pos(v)
	}
	var kvs []yamlpos.KV
	if n != nil {
		if k, ok := r.mapping(n, "completion"); ok {
			kvs = k
			for _, kv := range kvs {
				if kv.Key != "minFailedInstances" && kv.Key != "minSucceededInstances" {
					r.Lossyf(r.pos(kv.KeyNode), "Unknown field", "%q is not a field of completion (minFailedInstances, minSucceededInstances).", kv.Key)
				}
			}
		}
	}
	minFailed, fpos := read(kvs, "minFailedInstances")
	minSucceeded, spos := read(kvs, "minSucceededInstances")
	if minFailed == 0 {
		minFailed = 1
	}
	if minSucceeded == 0 {
		minSucceeded = role.Instances
	}
	role.MinFailed, role.MinFailedPos = &minFailed, fpos
	role.MinSucceeded, role.MinSucceededPos = &minSucceeded, spos
}

// image takes the role's image (and registry credentials) from a
// dockerimage prerequisite. Credentials are kept as written: a password
// referring to <% $secrets.x %> stays a reference, resolved from
// Job.Secrets by whatever pulls the image.
func (r *v2reader) image(role *jobs.Role, p *prereq) {
	if uri := yamlpos.Get(p.kvs, "uri"); uri != nil && uri.ShortTag() == "!!str" {
		role.Image, role.ImagePos = uri.Value, r.pos(uri)
	}
	a := yamlpos.Get(p.kvs, "auth")
	if a == nil || a.Kind != yaml.MappingNode {
		return
	}
	akvs := yamlpos.Pairs(a).KVs
	auth := &jobs.ImageAuth{Registry: "https://index.docker.io/v1/"} // k8s.js getDockerSecretDef default
	for _, kv := range akvs {
		v := yamlpos.Resolve(kv.Val)
		if v == nil || v.Kind != yaml.ScalarNode {
			continue
		}
		switch kv.Key {
		case "username":
			auth.Username = v.Value
		case "password":
			auth.Password = v.Value
		case "registryuri":
			auth.Registry = v.Value
		default:
			r.Warnf(r.pos(kv.KeyNode), "Unknown auth field ignored", "auth.%s is not used; auth has username, password and registryuri.", kv.Key)
		}
	}
	// PAI rendered auth with only $secrets in scope; the values are kept
	// as written here, so only the references are checked.
	for _, s := range []string{auth.Username, auth.Password, auth.Registry} {
		_, unresolved, err := renderRefs(s, nil)
		if err != nil {
			r.Errorf(r.pos(a), "Invalid <% %> template", "An auth value of image %q: %s; OpenPAI's renderer refused it.", role.Image, err.Msg)
			continue
		}
		r.checkLeftovers(unresolved, r.pos(a), role.Name)
	}
	role.ImageAuth = auth
}

// rolePrereqs reads a role's `prerequisites` list: names of any
// prerequisite; runtime-plugin ones become plugin calls for this role.
func (r *v2reader) rolePrereqs(role *jobs.Role, n *yaml.Node) {
	items, ok := r.stringList(n, "prerequisites")
	if !ok {
		return
	}
	for _, it := range items {
		name := it.Value
		if !r.names[name] {
			r.Errorf(r.pos(it), "Unknown prerequisite", "Task role %q lists prerequisite %q, which is not declared; OpenPAI refused such jobs.", role.Name, name)
			continue
		}
		role.Prerequisites = append(role.Prerequisites, name)
		for _, typ := range []string{"script", "output", "data", "dockerimage"} {
			if p := r.prereqs[typ][name]; p != nil {
				if pl, _ := p.value["plugin"].(string); strings.HasPrefix(pl, runtimePluginPrefix) {
					p.uses = append(p.uses, role.Name)
				}
			}
		}
	}
}
