package volcano

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// reader collects the diagnostics of one file.
type reader struct {
	diag.Collector
	path string
	// docs and secrets are the file's documents and the -secrets file:
	// the ConfigMaps and Secrets the pod templates may read.
	docs    []*yaml.Node
	secrets map[string]any
	source  jobs.SecretSource // the site's (jobs.ReadOptions.SecretSource)
	// namespace is metadata.namespace ("" = Kubernetes' default): the
	// pods' namespace, which a fieldRef may read.
	namespace string
}

func (r *reader) pos(n *yaml.Node) jobs.Pos {
	if n == nil || n.Line == 0 {
		return jobs.Pos{File: r.path, Line: 1, Col: 1}
	}
	return yamlpos.Pos(n, r.path)
}

func (r *reader) errorf(n *yaml.Node, summary, detail string, args ...any) {
	r.Errorf(r.pos(n), summary, detail, args...)
}

func (r *reader) warnf(n *yaml.Node, summary, detail string, args ...any) {
	r.Warnf(r.pos(n), summary, detail, args...)
}

func (r *reader) lossyf(n *yaml.Node, summary, detail string, args ...any) {
	r.Lossyf(r.pos(n), summary, detail, args...)
}

// mapping is a YAML mapping, duplicate keys resolved last-wins (as
// kubectl's YAML→JSON step does), with the keys read so far recorded so
// that the rest can be warned about.
type mapping struct {
	r     *reader
	node  *yaml.Node
	where string
	kvs   []yamlpos.KV
	used  map[string]bool
}

func (r *reader) mapOf(n *yaml.Node, where string) *mapping {
	m := &mapping{r: r, node: n, where: where, used: map[string]bool{}}
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "Expected a mapping", "%s must be a mapping of keys to values.", where)
		return m
	}
	p := yamlpos.Pairs(n)
	for _, d := range p.Dups {
		r.warnf(d.KeyNode, "Duplicate key", "%s has the key %q twice; the last one wins, as in kubectl's JSON conversion. Remove one of them.", where, d.Key)
	}
	m.node, m.kvs = n, p.LastWins()
	return m
}

// field returns the key and value nodes of key (nil, nil when absent).
func (m *mapping) field(key string) (*yaml.Node, *yaml.Node) {
	m.used[key] = true
	for _, kv := range m.kvs {
		if kv.Key == key {
			return kv.KeyNode, kv.Val
		}
	}
	return nil, nil
}

func (m *mapping) get(key string) *yaml.Node { _, v := m.field(key); return v }

// warnUnknown warns about every key not read.
func (m *mapping) warnUnknown() {
	for _, kv := range m.kvs {
		if !m.used[kv.Key] {
			m.r.warnf(kv.KeyNode, "Unknown field", "%s.%s is not a field jobshift knows for a Volcano Job; it is ignored.", m.where, kv.Key)
		}
	}
}

func (r *reader) str(n *yaml.Node, where string) (string, bool) {
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		r.errorf(n, "Expected a string", "%s must be a string; Kubernetes rejects %q here (quote it).", where, n.Value)
		return "", false
	}
	return n.Value, true
}

func (r *reader) integer(n *yaml.Node, where string) (int, bool) {
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return 0, false
	}
	v, ok := yamlpos.Int(n)
	if !ok || v > 1<<31-1 || v < -(1<<31) {
		r.errorf(n, "Expected an integer", "%s must be a 32-bit integer, not %q.", where, n.Value)
		return 0, false
	}
	return int(v), true
}

// count reads a non-negative integer.
func (r *reader) count(n *yaml.Node, where string) (int, bool) {
	v, ok := r.integer(n, where)
	if ok && v < 0 {
		r.errorf(n, "Negative value", "%s must be 0 or more, not %d; Volcano's CRD validation rejects it.", where, v)
		return 0, false
	}
	return v, ok
}

func (r *reader) seq(n *yaml.Node, where string) []*yaml.Node {
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "Expected a list", "%s must be a list.", where)
		return nil
	}
	return n.Content
}

func (r *reader) strList(n *yaml.Node, where string) []string {
	var out []string
	for i, e := range r.seq(n, where) {
		if s, ok := r.str(e, fmt.Sprintf("%s[%d]", where, i)); ok {
			out = append(out, s)
		}
	}
	return out
}
