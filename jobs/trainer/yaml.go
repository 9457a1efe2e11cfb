package trainer

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// file is one YAML file being read (the job file, a -runtime file, a
// built-in runtime): its path for positions and its diagnostics, with the
// Kubernetes pod-template rules of jobs/kubeflow.
type file struct {
	path    string
	builtin bool // an embedded upstream manifest: its warnings are not the user's
	pod     *kubeflow.PodReader
	c       *diag.Collector
}

func newFile(path string, lossy bool) *file {
	p := kubeflow.NewPodReader(path, lossy)
	return &file{path: path, pod: p, c: p.Collector()}
}

func (f *file) pos(n *yaml.Node) jobs.Pos {
	if n == nil || n.Line == 0 {
		return jobs.Pos{File: f.path, Line: 1, Col: 1}
	}
	return yamlpos.Pos(n, f.path)
}

func (f *file) errorf(n *yaml.Node, summary, detail string, args ...any) {
	f.c.Errorf(f.pos(n), summary, detail, args...)
}

func (f *file) warnf(n *yaml.Node, summary, detail string, args ...any) {
	f.c.Warnf(f.pos(n), summary, detail, args...)
}

func (f *file) lossyf(n *yaml.Node, summary, detail string, args ...any) {
	f.c.Lossyf(f.pos(n), summary, detail, args...)
}

// kv is one key/value pair of a mapping.
type kv struct{ key, val *yaml.Node }

// mapping is a YAML mapping read last-wins (as Kubernetes decodes it),
// remembering which keys were looked at so the rest can be warned about.
type mapping struct {
	f     *file
	node  *yaml.Node
	where string
	kvs   []kv
	index map[string]int
	used  map[string]bool
}

func (f *file) mapOf(n *yaml.Node, where string) *mapping {
	m := &mapping{f: f, where: where, index: map[string]int{}, used: map[string]bool{}}
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		f.errorf(n, "Expected a mapping", "%s must be a mapping of keys to values, not %s.", where, describe(n))
		return m
	}
	m.node = n
	p := yamlpos.Pairs(n)
	for _, d := range p.Dups {
		f.warnf(d.KeyNode, "Duplicate key", "%s has the key %q twice (first at line %d); the last one wins, as in kubectl. Remove one of them.", where, d.Key, p.KVs[d.First].KeyNode.Line)
	}
	for _, e := range p.LastWins() {
		m.index[e.Key] = len(m.kvs)
		m.kvs = append(m.kvs, kv{e.KeyNode, e.Val})
	}
	return m
}

// get returns the value of key (nil when absent or null) and marks it read.
func (m *mapping) get(key string) *yaml.Node { return m.field(key).val }

func (m *mapping) field(key string) kv {
	m.used[key] = true
	if i, ok := m.index[key]; ok && !yamlpos.IsNull(yamlpos.Resolve(m.kvs[i].val)) {
		return kv{m.kvs[i].key, yamlpos.Resolve(m.kvs[i].val)}
	}
	if i, ok := m.index[key]; ok {
		return kv{key: m.kvs[i].key}
	}
	return kv{}
}

func (m *mapping) ignore(keys ...string) {
	for _, k := range keys {
		m.used[k] = true
	}
}

// warnUnknown warns about every key nobody read.
func (m *mapping) warnUnknown() {
	for _, e := range m.kvs {
		if !m.used[e.key.Value] {
			m.f.warnf(e.key, "Unknown field ignored", "%s has no field %q that jobshift knows; it is ignored. Check the spelling and indentation.", m.where, e.key.Value)
		}
	}
}

func (f *file) seq(n *yaml.Node, where string) []*yaml.Node {
	n = yamlpos.Resolve(n)
	if yamlpos.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		f.errorf(n, "Expected a list", "%s must be a list, not %s.", where, describe(n))
		return nil
	}
	return n.Content
}

func (f *file) str(n *yaml.Node, where string) (string, bool) { return f.pod.Str(n, where) }

func (f *file) integer(n *yaml.Node, where string) (int64, bool) { return f.pod.Int(n, where) }

func (f *file) boolean(n *yaml.Node, where string) (bool, bool) { return f.pod.Bool(n, where) }

// count reads a non-negative count bounded by jobshift's task limit.
func (f *file) count(n *yaml.Node, where string, min int64) (int, bool) {
	v, ok := f.integer(n, where)
	if !ok {
		return 0, false
	}
	if v < min || v > 100000 {
		f.errorf(n, "Invalid "+where, "%s is %d; it must be between %d and 100000.", where, v, min)
		return 0, false
	}
	return int(v), true
}

func describe(n *yaml.Node) string {
	n = yamlpos.Resolve(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "an unexpected YAML node"
}

// scalar is the text of a scalar node ("" otherwise), without diagnostics.
func scalar(n *yaml.Node) string {
	n = yamlpos.Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// child is the value of key in mapping n, without diagnostics.
func child(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = yamlpos.Resolve(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		n = yamlpos.Get(yamlpos.Pairs(n).LastWins(), k)
	}
	return yamlpos.Resolve(n)
}
