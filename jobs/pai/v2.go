package pai

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// OpenPAI protocol v2 YAML (spec/pai.md §2). The rules are those of the
// rest-server's AJV schema (pai:src/rest-server/src/config/v2/protocol.js)
// and its protocolValidate/protocolRender middleware, with the k8s-era
// defaults of models/v2/job/k8s.js.
//
// Unknown keys at the top level, in a task role, in resourcePerInstance and
// in a deployment role are errors unless ReadOptions.Lossy: the schema says
// additionalProperties: false, so PAI refused such a file and it never ran;
// the key is most likely a misspelling (taskRetrycount) whose intended
// effect would otherwise be lost without a word.

var (
	v2NameRe  = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	v2RoleRe  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	v2LabelRe = v2RoleRe
)

var v2TopKeys = map[string]bool{
	"protocolVersion": true, "name": true, "type": true, "version": true, "contributor": true,
	"description": true, "prerequisites": true, "parameters": true, "secrets": true,
	"jobRetryCount": true, "taskRoles": true, "deployments": true, "defaults": true, "extras": true,
}

type v2reader struct {
	diagSink
	opts    jobs.ReadOptions
	file    string
	job     *jobs.Job
	prereqs map[string]map[string]*prereq // type → name → prerequisite
	names   map[string]bool               // every prerequisite name
	params  map[string]any
	deploy  map[string]yamlpos.KV // role → its entry in the defaults.deployment deployment
	gang    bool
	// paramsRefused: parameters were refused (too large), so references
	// to them are not reported again as naming nothing
	paramsRefused bool
	// secretsRefused: likewise for the secrets, whose tree is then partial
	secretsRefused bool
}

// ReadV2 reads an OpenPAI protocol v2 YAML job. It returns the job only
// when there are no errors.
func ReadV2(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
	r := &v2reader{opts: opts, file: opts.Path, gang: true}
	r.Lossy = opts.Lossy // content PAI refused: Lossyf
	job := r.read(src)
	if r.Diags.HasErrors() {
		return nil, r.Diags
	}
	return job, r.Diags
}

func (r *v2reader) pos(n *yaml.Node) jobs.Pos { return yamlpos.Pos(n, r.file) }

// mapping returns the entries of n, reporting duplicate keys (js-yaml
// refused them, so PAI did too) and n not being a mapping.
func (r *v2reader) mapping(n *yaml.Node, what string) ([]yamlpos.KV, bool) {
	n = yamlpos.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		r.Errorf(r.pos(n), "Not a mapping", "%s must be a mapping of key: value entries, not %s.", what, kindName(n))
		return nil, false
	}
	m := yamlpos.Pairs(n)
	for _, d := range m.Dups {
		r.Errorf(r.pos(d.KeyNode), "Duplicate key", "%q appears twice in %s; OpenPAI's YAML parser refused that. Keep one.", d.Key, what)
	}
	for _, k := range m.Odd {
		r.Lossyf(r.pos(k), "Unknown field", "A key that is %s, not a string, is not a field of %s; OpenPAI refused files with unknown fields.", kindName(k), what)
	}
	return m.KVs, true
}

func (r *v2reader) unknown(kvs []yamlpos.KV, known map[string]bool, what string) {
	for _, kv := range kvs {
		if !known[kv.Key] {
			r.Lossyf(r.pos(kv.KeyNode), "Unknown field", "%q is not a field of %s; OpenPAI refused files with unknown fields.", kv.Key, what)
		}
	}
}

// findJob picks the job document and an optional secrets document.
func (r *v2reader) findJob(docs []*yaml.Node) (job, secrets *yaml.Node) {
	for _, d := range docs {
		root := yamlpos.Root(d)
		if root == nil {
			continue // an empty document (comments only)
		}
		kvs := yamlpos.Pairs(root).KVs
		isJob := yamlpos.Get(kvs, "protocolVersion") != nil || yamlpos.Get(kvs, "protocol_version") != nil || yamlpos.Get(kvs, "taskRoles") != nil
		switch {
		case job == nil && isJob:
			job = root
		case secrets == nil && !isJob && root.Kind == yaml.MappingNode:
			secrets = root
		default:
			r.Warnf(r.pos(root), "Document ignored", "Only the job document and one secrets document are read; this %s document is ignored.", kindName(root))
		}
	}
	return job, secrets
}

func (r *v2reader) read(src []byte) *jobs.Job {
	docs, d := yamlpos.Docs(src, r.file, yamlpos.Options{YAML12: true, Hint: "Fix the YAML syntax; OpenPAI could not have read this file either."})
	if d != nil {
		r.Diags = append(r.Diags, d)
		return nil
	}
	root, secretsDoc := r.findJob(docs)
	if root == nil {
		r.Errorf(jobs.Pos{File: r.file, Line: 1, Col: 1}, "No OpenPAI v2 job", "No YAML document has protocolVersion or taskRoles; an OpenPAI v2 job starts with `protocolVersion: 2`.")
		return nil
	}
	kvs, ok := r.mapping(root, "the job")
	if !ok {
		return nil
	}
	if n := yamlpos.Get(kvs, "protocol_version"); n != nil && yamlpos.Get(kvs, "protocolVersion") == nil {
		r.Errorf(r.pos(n), "Unsupported pre-standard protocol",
			"`protocol_version: %s` is the 2018 marketplace draft (tasks list, $$param$$ placeholders), which OpenPAI never ran as a job. Rewrite it as a protocol v2 job (`protocolVersion: 2`, `taskRoles`).", n.Value)
		return nil
	}
	r.unknown(kvs, v2TopKeys, "an OpenPAI v2 job")
	switch r.opts.Dialect {
	case "", DialectPAI:
	case DialectLeinao:
		r.Warnf(r.pos(root), "Dialect ignored", "LeinaoPAI jobs are v1 JSON files; -dialect leinao has no effect on a protocol v2 job.")
	default:
		r.Errorf(r.pos(root), "Unknown dialect", "Dialect %q is not known; use %q or %q.", r.opts.Dialect, DialectLeinao, DialectPAI)
	}
	job := &jobs.Job{
		Source:         jobs.Source{Format: jobs.FormatPAIv2, Version: "2", Path: r.opts.Path},
		Completion:     jobs.Completion{Kind: jobs.CompletionPAI},
		Retry:          jobs.Retry{Fancy: true, GangAllocation: true},
		Contracts:      []string{jobs.ContractPAI},
		VirtualCluster: "default",
	}
	r.job = job
	r.header(root, kvs)
	r.parameters(yamlpos.Get(kvs, "parameters"))
	r.secrets(yamlpos.Get(kvs, "secrets"), secretsDoc)
	r.prerequisites(yamlpos.Get(kvs, "prerequisites"))
	r.deployments(yamlpos.Get(kvs, "deployments"), yamlpos.Get(kvs, "defaults"))
	extras := yamlpos.Get(kvs, "extras")
	r.gangAllocation(extras)
	if n := yamlpos.Get(kvs, "jobRetryCount"); n != nil {
		if v, ok := r.integer(n, "jobRetryCount"); ok {
			if v < 0 {
				r.Errorf(r.pos(n), "Invalid jobRetryCount", "jobRetryCount must be 0 or more in protocol v2; got %d.", v)
			}
			job.Retry.JobRetryCount, job.Retry.Pos = int(v), r.pos(n)
		}
	}
	r.taskRoles(root, yamlpos.Get(kvs, "taskRoles"))
	r.extras(extras)
	sshUse(job, r.Warnf)
	return job
}

// header reads protocolVersion, name, type, version, contributor, description.
func (r *v2reader) header(root *yaml.Node, kvs []yamlpos.KV) {
	for _, key := range []string{"protocolVersion", "name", "type"} {
		if yamlpos.Get(kvs, key) == nil {
			r.Errorf(r.pos(root), "Missing "+key, "An OpenPAI v2 job needs %q.", key)
		}
	}
	if n := yamlpos.Get(kvs, "protocolVersion"); n != nil {
		r.protocolVersion(n)
	}
	if n := yamlpos.Get(kvs, "name"); n != nil {
		if s, ok := r.str(n, "name"); ok {
			r.job.Name, r.job.NamePos = s, r.pos(n)
			if !v2NameRe.MatchString(s) || len(s) > 255 {
				r.Errorf(r.pos(n), "Invalid job name", "The job name %q may only contain letters, digits, '_' and '-' (at most 255).", s)
			}
		}
	}
	if n := yamlpos.Get(kvs, "type"); n != nil {
		if s, ok := r.str(n, "type"); ok && s != "job" {
			r.Errorf(r.pos(n), "Not a job", "type is %q; only `type: job` can be run.", s)
		}
	}
	r.version(yamlpos.Get(kvs, "version"))
	for _, key := range []string{"contributor", "description"} {
		if n := yamlpos.Get(kvs, key); n != nil {
			r.str(n, key)
		}
	}
}

func (r *v2reader) protocolVersion(n *yaml.Node) {
	v := yamlpos.Scalar(n)
	if n.Kind == yaml.ScalarNode {
		switch v := v.(type) {
		case int64:
			if v == 2 {
				return
			}
		case float64:
			if v == 2 {
				return
			}
		case string:
			if v == "2" {
				return
			}
		}
	}
	r.Errorf(r.pos(n), "Unsupported protocolVersion", "protocolVersion must be 2 (or \"2\"); got %s.", describe(n))
}

func (r *v2reader) version(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		r.Errorf(r.pos(n), "Invalid version", "version must be a string or a number, not %s.", kindName(n))
	}
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return kindName(n)
}

// parameters reads `parameters` and applies -var overrides. A -var naming
// no declared parameter is an error: it would silently do nothing.
func (r *v2reader) parameters(n *yaml.Node) {
	if n != nil {
		if _, ok := r.mapping(n, "parameters"); ok {
			v, whole := yamlpos.Value(n, yamlpos.ValueOptions{})
			if !whole {
				r.paramsRefused = true
				r.Errorf(r.pos(n), "Parameters too large", "parameters expand to more than %d values or 200 levels (YAML aliases repeat values: an alias bomb?); jobshift refuses them rather than render commands from a part of them.", yamlpos.MaxValueNodes)
			}
			r.params, _ = v.(map[string]any)
		}
	}
	names := make([]string, 0, len(r.opts.Vars))
	for k := range r.opts.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, ok := r.params[k]; !ok {
			at := jobs.Pos{File: r.file, Line: 1, Col: 1}
			if n != nil {
				at = r.pos(n)
			}
			r.Errorf(at, "Unknown parameter", "-var %s=... names no parameter of this job; declared parameters: %v.", k, sortedKeys(r.params))
			continue
		}
		r.params[k] = r.opts.Vars[k]
	}
	if len(r.params) > 0 {
		r.job.Parameters = r.params
	}
}

// secrets records the job's secrets: -secrets FILE wins over a secrets
// document in the file, which wins over the inline `secrets` key. Values
// only ever go to Job.Secrets.
func (r *v2reader) secrets(inline, doc *yaml.Node) {
	var src *yaml.Node
	if inline != nil {
		if _, ok := r.mapping(inline, "secrets"); ok {
			src = inline
		}
	}
	if doc != nil {
		if src != nil && r.opts.Secrets == nil {
			r.Warnf(r.pos(doc), "Two sets of secrets", "The job has a `secrets` key and a secrets document; the secrets document is used.")
		}
		src = doc
	}
	var names []string
	switch {
	case r.opts.Secrets != nil:
		r.job.Secrets = r.opts.Secrets
		names = sortedKeys(r.opts.Secrets)
	case src != nil:
		v, whole := yamlpos.Value(src, yamlpos.ValueOptions{})
		if !whole {
			r.Errorf(r.pos(src), "Secrets too large", "The secrets document expands to more than %d values or 200 levels (YAML aliases repeat values: an alias bomb?); jobshift refuses it rather than use a part of it.", yamlpos.MaxValueNodes)
			r.secretsRefused = true
		}
		r.job.Secrets, _ = v.(map[string]any)
		kvs := yamlpos.Pairs(src).KVs
		for _, kv := range kvs {
			names = append(names, kv.Key)
		}
	}
	r.job.SecretNames = names
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// str, integer, boolean check a scalar's YAML type the way AJV checked the
// JSON js-yaml produced (no coercion: "4" is not an integer).
func (r *v2reader) str(n *yaml.Node, field string) (string, bool) {
	if n = yamlpos.Resolve(n); n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		r.Errorf(r.pos(n), "Not a string", "%s must be a string, not %s.", field, kindName(n))
		return "", false
	}
	return n.Value, true
}

func (r *v2reader) integer(n *yaml.Node, field string) (int64, bool) {
	if n = yamlpos.Resolve(n); n != nil && n.Kind == yaml.ScalarNode {
		switch v := yamlpos.Scalar(n).(type) {
		case int64:
			if v <= maxSafeInt && v >= -maxSafeInt {
				return v, true
			}
		case float64:
			if v == float64(int64(v)) && v <= maxSafeInt && v >= -maxSafeInt {
				return int64(v), true
			}
		}
	}
	r.Errorf(r.pos(n), "Not an integer", "%s must be a whole number, not %s.", field, describeValue(n))
	return 0, false
}

func describeValue(n *yaml.Node) string {
	if n != nil && n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", kindName(n), n.Value)
	}
	return kindName(n)
}
