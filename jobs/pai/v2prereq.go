package pai

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// Prerequisites, deployments and the rendering of commands (spec/pai.md
// §2.1, §2.2).

const runtimePluginPrefix = "com.microsoft.pai.runtimeplugin."

type prereq struct {
	name, typ string
	node      *yaml.Node
	kvs       []yamlpos.KV
	value     map[string]any // the whole object, as $data/$script/$output
	uses      []string       // roles listing it in their prerequisites
}

var prereqBaseKeys = map[string]bool{
	"protocolVersion": true, "name": true, "version": true, "contributor": true, "description": true, "type": true, "uri": true,
}

func (r *v2reader) prerequisites(n *yaml.Node) {
	r.prereqs = map[string]map[string]*prereq{"dockerimage": {}, "script": {}, "output": {}, "data": {}}
	r.names = map[string]bool{}
	if n == nil {
		return
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		r.Errorf(r.pos(n), "Invalid prerequisites", "prerequisites must be a non-empty list, not %s.", kindName(n))
		return
	}
	for _, item := range n.Content {
		item = yamlpos.Resolve(item)
		kvs, ok := r.mapping(item, "a prerequisite")
		if !ok {
			continue
		}
		p := &prereq{node: item, kvs: kvs}
		for _, key := range []string{"name", "type"} {
			if yamlpos.Get(kvs, key) == nil {
				r.Errorf(r.pos(item), "Prerequisite without "+key, "Every prerequisite needs %q.", key)
			}
		}
		if v := yamlpos.Get(kvs, "name"); v != nil {
			p.name, _ = r.str(v, "prerequisite name")
		}
		if v := yamlpos.Get(kvs, "type"); v != nil {
			if p.typ, ok = r.str(v, "prerequisite type"); ok && r.prereqs[p.typ] == nil {
				r.Errorf(r.pos(v), "Unknown prerequisite type", "type %q must be dockerimage, script, output or data.", p.typ)
				continue
			}
		}
		if v := yamlpos.Get(kvs, "protocolVersion"); v != nil {
			r.protocolVersion(v)
		}
		r.version(yamlpos.Get(kvs, "version"))
		for _, key := range []string{"contributor", "description"} {
			if v := yamlpos.Get(kvs, key); v != nil {
				r.str(v, key)
			}
		}
		r.prereqShape(p)
		if p.name == "" || p.typ == "" {
			continue
		}
		if r.prereqs[p.typ][p.name] != nil {
			r.Errorf(r.pos(yamlpos.Get(kvs, "name")), "Duplicate prerequisite", "There are two %s prerequisites named %q; OpenPAI refused that. Rename one.", p.typ, p.name)
			continue
		}
		p.value, _ = yamlValue(item).(map[string]any)
		r.prereqs[p.typ][p.name] = p
		r.names[p.name] = true
	}
}

// prereqShape checks the per-type rules: dockerimage has a string uri, an
// optional auth and nothing else; data has a list uri; script and output a
// string uri; the last three may carry plugin keys.
func (r *v2reader) prereqShape(p *prereq) {
	uri := yamlpos.Get(p.kvs, "uri")
	switch p.typ {
	case "dockerimage":
		for _, kv := range p.kvs {
			if !prereqBaseKeys[kv.Key] && kv.Key != "auth" {
				r.Lossyf(r.pos(kv.KeyNode), "Unknown field", "%q is not a field of a dockerimage prerequisite; OpenPAI refused it.", kv.Key)
			}
		}
		if uri == nil {
			r.Errorf(r.pos(p.node), "Docker image without uri", "dockerimage prerequisite %q needs `uri`, the image to pull.", p.name)
		} else {
			r.str(uri, "uri")
		}
		if a := yamlpos.Get(p.kvs, "auth"); a != nil {
			if akvs, ok := r.mapping(a, "auth"); ok {
				for _, kv := range akvs {
					r.str(kv.Val, "auth."+kv.Key)
				}
			}
		}
	case "data":
		if uri != nil && (uri.Kind != yaml.SequenceNode) {
			r.Errorf(r.pos(uri), "Invalid data uri", "The uri of a data prerequisite is a list of strings, not %s.", kindName(uri))
		} else if uri != nil {
			for _, u := range uri.Content {
				r.str(u, "uri entry")
			}
		}
	case "script", "output":
		if uri != nil {
			r.str(uri, "uri")
		}
	}
	if pl := yamlpos.Get(p.kvs, "plugin"); pl != nil {
		r.str(pl, "plugin")
	}
}

// reference resolves a role's dockerImage/data/output/script value.
func (r *v2reader) reference(n *yaml.Node, typ, field string) *prereq {
	name, ok := r.str(n, field)
	if !ok {
		return nil
	}
	p := r.prereqs[typ][name]
	if p == nil {
		r.Errorf(r.pos(n), "Unknown prerequisite", "%s names %q, but no %s prerequisite has that name; OpenPAI refused such jobs. Declare it under prerequisites or fix the name.", field, name, typ)
	}
	return p
}

// deployments reads `deployments` and `defaults`, keeping the deployment
// defaults.deployment selects.
func (r *v2reader) deployments(n, defaults *yaml.Node) {
	byName := map[string][]yamlpos.KV{}
	if n != nil {
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
			r.Errorf(r.pos(n), "Invalid deployments", "deployments must be a non-empty list, not %s.", kindName(n))
		} else {
			for _, item := range n.Content {
				r.deployment(item, byName)
			}
		}
	}
	if defaults == nil {
		return
	}
	kvs, ok := r.mapping(defaults, "defaults")
	if !ok {
		return
	}
	for _, kv := range kvs {
		switch kv.Key {
		case "virtualCluster":
			if s, ok := r.str(kv.Val, "defaults.virtualCluster"); ok {
				r.job.VirtualCluster = s
			}
		case "deployment":
			name, ok := r.str(kv.Val, "defaults.deployment")
			if !ok {
				continue
			}
			roles, found := byName[name]
			if !found {
				r.Errorf(r.pos(kv.Val), "Unknown deployment", "defaults.deployment names %q, but no deployment has that name; OpenPAI refused such jobs.", name)
				continue
			}
			r.deploy = map[string]yamlpos.KV{}
			for _, rkv := range roles {
				r.deploy[rkv.Key] = rkv
			}
		default:
			r.Warnf(r.pos(kv.KeyNode), "Unknown default ignored", "defaults.%s has no meaning to OpenPAI or jobshift.", kv.Key)
		}
	}
}

func (r *v2reader) deployment(item *yaml.Node, byName map[string][]yamlpos.KV) {
	kvs, ok := r.mapping(item, "a deployment")
	if !ok {
		return
	}
	name, rolesNode := yamlpos.Get(kvs, "name"), yamlpos.Get(kvs, "taskRoles")
	if name == nil || rolesNode == nil {
		r.Errorf(r.pos(item), "Incomplete deployment", "A deployment needs `name` and `taskRoles`.")
		return
	}
	s, ok := r.str(name, "deployment name")
	if !ok {
		return
	}
	if !v2NameRe.MatchString(s) {
		r.Errorf(r.pos(name), "Invalid deployment name", "Deployment name %q may only contain letters, digits, '_' and '-'.", s)
	}
	if _, dup := byName[s]; dup {
		r.Errorf(r.pos(name), "Duplicate deployment", "Two deployments are named %q; OpenPAI refused that.", s)
		return
	}
	roles, ok := r.mapping(rolesNode, "deployment taskRoles")
	if !ok {
		return
	}
	if len(roles) == 0 {
		r.Errorf(r.pos(rolesNode), "Empty deployment", "Deployment %q lists no task roles.", s)
	}
	for _, rkv := range roles {
		if !v2RoleRe.MatchString(rkv.Key) {
			r.Errorf(r.pos(rkv.KeyNode), "Invalid task role name", "%q is not a valid task role name (letters, digits, '_', not starting with a digit).", rkv.Key)
		}
		entry, ok := r.mapping(rkv.Val, "a deployment task role")
		if !ok {
			continue
		}
		for _, e := range entry {
			if e.Key != "preCommands" && e.Key != "postCommands" {
				r.Lossyf(r.pos(e.KeyNode), "Unknown field", "%q is not a field of a deployment task role (preCommands, postCommands).", e.Key)
				continue
			}
			r.stringList(e.Val, e.Key)
		}
	}
	byName[s] = roles
}

// stringList checks a non-empty list of strings.
func (r *v2reader) stringList(n *yaml.Node, field string) ([]*yaml.Node, bool) {
	n = yamlpos.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		r.Errorf(r.pos(n), "Invalid "+field, "%s must be a non-empty list of strings, not %s.", field, kindName(n))
		return nil, false
	}
	ok := true
	items := make([]*yaml.Node, 0, len(n.Content))
	for _, c := range n.Content {
		c = yamlpos.Resolve(c)
		if _, isStr := r.str(c, field+" entry"); !isStr {
			ok = false
		}
		items = append(items, c)
	}
	return items, ok
}

// entrypoint builds a role's script as protocolRender did: deployment
// preCommands ++ commands ++ postCommands, each trimmed, joined by "\n",
// rendered with $parameters/$script/$output/$data, and trimmed.
func (r *v2reader) entrypoint(role string, commands []*yaml.Node, ctx map[string]any) (string, []string, bool) {
	var items []*yaml.Node
	if d, ok := r.deploy[role]; ok {
		dkvs := yamlpos.Pairs(d.Val).KVs
		if pre := yamlpos.Get(dkvs, "preCommands"); pre != nil {
			items = append(items, pre.Content...)
		}
		items = append(items, commands...)
		if post := yamlpos.Get(dkvs, "postCommands"); post != nil {
			items = append(items, post.Content...)
		}
	} else {
		items = commands
	}
	var b strings.Builder
	starts := make([]int, len(items))
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		starts[i] = b.Len()
		if n := yamlpos.Resolve(it); n != nil {
			b.WriteString(jsTrim(n.Value))
		}
	}
	out, unresolved, err := renderRefs(b.String(), ctx)
	if err != nil {
		at := items[0]
		for i := range items {
			if starts[i] <= err.Offset {
				at = items[i]
			}
		}
		r.Errorf(r.pos(at), "Invalid <% %> template", "%s. OpenPAI renders commands with mustache.js using <%% %%> as delimiters and refused this job; fix the tag (a literal \"<%%\" can be written as '<''%%' in bash).", err.Msg)
		return "", nil, false
	}
	return out, unresolved, true
}

// checkLeftovers warns about <% %> references the renderer wrote back:
// $secrets ones the runtime renders later (they must name a secret), and
// any other one, which the task's bash would see literally.
func (r *v2reader) checkLeftovers(unresolved []string, at jobs.Pos, role string) {
	for _, path := range unresolved {
		if name, ok := strings.CutPrefix(path, "$secrets."); ok {
			top, _, _ := strings.Cut(name, ".")
			if _, found := r.job.Secrets[top]; !found {
				r.Errorf(at, "Unknown secret", "Role %q refers to <%% %s %%>, but the job has no secret %q, so the task would get the reference's text or an empty value; give it in a secrets document or with -secrets FILE.", role, path, top)
			} else if _, found := jobs.LookupSecret(r.job.Secrets, "."+name); !found && !r.secretsRefused {
				// every target keeps a reference that does not resolve as
				// written (jobs.LookupSecret), as a missing name
				r.Errorf(at, "Unknown secret", "Role %q refers to <%% %s %%>, but the job's secret %q has no value at %q, so the task would get the reference's text or an empty value; fix the path or the secret.", role, path, top, "."+name)
			}
			continue
		}
		if r.paramsRefused && strings.HasPrefix(path, "$parameters.") {
			continue
		}
		r.Warnf(at, "Unresolved reference", "Role %q refers to <%% %s %%>, which names nothing; OpenPAI left it in the command as written, so bash will see it literally. Declare it or fix the name.", role, path)
	}
}
