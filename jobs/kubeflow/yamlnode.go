package kubeflow

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// This file holds the reader's view of YAML on top of jobs/yamlpos (the
// layer shared with the PAI reader): Kubernetes' last-wins handling of
// duplicate keys, the typed scalars Kubernetes' JSON decoding accepts, and
// node-located diagnostics through the shared collector.

// reader collects diagnostics while one file is read.
type reader struct {
	diag.Collector // Lossy: jobs.ReadOptions.Lossy
	path           string
	// objs are the ConfigMaps and Secrets the pods may read (objects.go),
	// by "Kind/name".
	objs map[string]*object
	// source gives a Secret objs lacks (jobs.ReadOptions.SecretSource),
	// asked once per name; sourceErr, once set, stops further asking.
	source    jobs.SecretSource
	asked     map[string]bool
	sourceErr error
	// namespace is the job's metadata.namespace, "" for Kubernetes'
	// default; pod is the metadata of the pod template being read: what
	// the downward API gives (fieldref.go).
	namespace string
	pod       podMeta
}

func (r *reader) pos(n *yaml.Node) jobs.Pos {
	if n == nil {
		return jobs.Pos{}
	}
	return yamlpos.Pos(n, r.path)
}

func (r *reader) errorf(n *yaml.Node, summary, detail string, args ...any) {
	r.Errorf(r.posOrFile(n), summary, detail, args...)
}

func (r *reader) warnf(n *yaml.Node, summary, detail string, args ...any) {
	r.Warnf(r.posOrFile(n), summary, detail, args...)
}

// lossyf reports content jobshift cannot carry and whose loss changes what
// the job does (diag.Collector.Lossyf).
func (r *reader) lossyf(n *yaml.Node, summary, detail string, args ...any) {
	r.Lossyf(r.posOrFile(n), summary, detail, args...)
}

// posOrFile gives diagnostics without a node the file's first position, so
// that every diagnostic is located.
func (r *reader) posOrFile(n *yaml.Node) jobs.Pos {
	if n == nil || n.Line == 0 {
		return jobs.Pos{File: r.path, Line: 1, Col: 1}
	}
	return r.pos(n)
}

// deref follows YAML aliases (*anchor), bounded.
func deref(n *yaml.Node) *yaml.Node { return yamlpos.Resolve(n) }

// scalar returns the text of a scalar node ("" for anything else).
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// isNull reports a missing value or an explicit YAML null (`key:`, `~`).
func isNull(n *yaml.Node) bool { return yamlpos.IsNull(n) }

// field is one key/value pair of a mapping.
type field struct {
	key, val *yaml.Node
}

// mapping is a YAML mapping with duplicate keys resolved last-wins (what
// PyYAML and encoding/json do; yaml.v3 would reject the file), plus a record
// of which keys the reader looked at, so the rest can be warned about.
type mapping struct {
	r      *reader
	node   *yaml.Node
	where  string
	fields []field
	index  map[string]int
	used   map[string]bool
}

// mapOf views n as a mapping. A null n is an empty mapping; any other
// non-mapping is an error and also yields an empty mapping, so callers
// never need nil checks.
func (r *reader) mapOf(n *yaml.Node, where string) *mapping {
	m := &mapping{r: r, node: n, where: where, index: map[string]int{}, used: map[string]bool{}}
	n = deref(n)
	if isNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "Expected a mapping", "%s must be a mapping of keys to values, not %s.", where, describe(n))
		return m
	}
	m.node = n
	p := yamlpos.Pairs(n)
	for _, k := range p.Odd {
		r.warnf(k, "Ignored non-string key", "%s has a key that is not a plain string; Kubernetes rejects such keys, jobshift ignores it.", where)
	}
	for _, d := range p.Dups {
		r.warnf(d.KeyNode, "Duplicate key", "%s has the key %q twice (first at line %d); the last one wins, as in PyYAML and kubectl's JSON conversion. Remove one of them.", where, d.Key, p.KVs[d.First].KeyNode.Line)
	}
	for _, kv := range p.LastWins() {
		m.index[kv.Key] = len(m.fields)
		m.fields = append(m.fields, field{kv.KeyNode, kv.Val})
	}
	return m
}

// get returns the value of key (nil when absent) and marks it as read.
func (m *mapping) get(key string) *yaml.Node {
	f := m.field(key)
	return f.val
}

// field returns key and value nodes of key (zero field when absent).
func (m *mapping) field(key string) field {
	m.used[key] = true
	if i, ok := m.index[key]; ok {
		return m.fields[i]
	}
	return field{}
}

// has reports whether key is present with a non-null value.
func (m *mapping) has(key string) bool {
	i, ok := m.index[key]
	return ok && !isNull(m.fields[i].val)
}

// ignore marks keys as read without using them (known, deliberately
// dropped, no diagnostic).
func (m *mapping) ignore(keys ...string) {
	for _, k := range keys {
		m.used[k] = true
	}
}

// warnUnknown warns about every key nobody read.
func (m *mapping) warnUnknown() {
	for _, f := range m.fields {
		if !m.used[f.key.Value] {
			m.r.warnf(f.key, "Unknown field ignored", "%s has no field %q that jobshift knows; it is ignored. Check the spelling and indentation.", m.where, f.key.Value)
		}
	}
}

// describe names the YAML kind of n for messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.ScalarNode:
		return fmt.Sprintf("the %s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	}
	return "an unexpected YAML node"
}

// str reads a string value. Kubernetes decodes YAML through JSON into Go
// strings, so a number or boolean where a string belongs makes the API
// server reject the object: that is an error here too.
func (r *reader) str(n *yaml.Node, where string) (string, bool) {
	n = deref(n)
	if isNull(n) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		r.errorf(n, "Expected a string", "%s must be a string, not %s; Kubernetes rejects this. Quote the value.", where, describe(n))
		return "", false
	}
	return n.Value, true
}

// strList reads a list of strings (command, args).
func (r *reader) strList(n *yaml.Node, where string) []string {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "Expected a list", "%s must be a list of strings, not %s; Kubernetes rejects this. Write it as [\"...\"] or one `- item` per line.", where, describe(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, it := range n.Content {
		s, ok := r.str(it, fmt.Sprintf("%s[%d]", where, i))
		if !ok && !isNull(it) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// integer reads an integer value (replicas, backoffLimit, ports).
func (r *reader) integer(n *yaml.Node, where string) (int64, bool) {
	n = deref(n)
	if isNull(n) {
		return 0, false
	}
	if v, ok := yamlpos.Int(n); ok {
		return v, true
	}
	r.errorf(n, "Expected an integer", "%s must be an integer, not %s; Kubernetes rejects this.", where, describe(n))
	return 0, false
}

// boolean reads a true/false value.
func (r *reader) boolean(n *yaml.Node, where string) (bool, bool) {
	n = deref(n)
	if isNull(n) {
		return false, false
	}
	if v, ok := yamlpos.Bool(n); ok {
		return v, true
	}
	r.errorf(n, "Expected true or false", "%s must be true or false, not %s; Kubernetes rejects this.", where, describe(n))
	return false, false
}

// seq returns the items of a list (nil for null; error for non-lists).
func (r *reader) seq(n *yaml.Node, where string) []*yaml.Node {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "Expected a list", "%s must be a list, not %s.", where, describe(n))
		return nil
	}
	return n.Content
}

// parseDocuments splits src into its YAML documents; a syntax error stops
// the split, located (yamlpos.Docs).
func (r *reader) parseDocuments(src []byte) ([]*yaml.Node, bool) {
	docs, d := yamlpos.Docs(src, r.path, yamlpos.Options{Hint: "Fix the YAML syntax (indentation, quoting of {{...}} or : in values) and try again."})
	if d != nil {
		r.Diags = append(r.Diags, d)
		return docs, false
	}
	return docs, true
}
