package yamlpos

import (
	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// maxAliasChain bounds following an alias that points at an alias.
const maxAliasChain = 64

// Resolve follows aliases (*anchor); nil for a chain longer than
// maxAliasChain.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < maxAliasChain; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// IsNull reports a missing value or an explicit YAML null (`key:`, `~`).
func IsNull(n *yaml.Node) bool {
	n = Resolve(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// Pos is where n is in file; the zero Pos (no line) when n is nil.
func Pos(n *yaml.Node, file string) jobs.Pos {
	if n == nil {
		return jobs.Pos{File: file}
	}
	return jobs.Pos{File: file, Line: n.Line, Col: n.Column}
}

// KV is one entry of a mapping.
type KV struct {
	Key     string
	KeyNode *yaml.Node
	Val     *yaml.Node
}

// Mapping is a mapping's entries as a reader needs them.
type Mapping struct {
	// KVs: one entry per key, in the file's order, the first occurrence
	// of a key; keys brought in by `<<` merges follow the explicit ones
	// (explicit keys win, as in js-yaml and yaml.v2).
	KVs []KV
	// Dups: later occurrences of a key, with First the index of its first
	// occurrence in KVs (the reader reports them, and may let them win).
	Dups []Dup
	// Odd: keys that are not scalars (mappings, lists, aliases of them);
	// they are in neither list.
	Odd []*yaml.Node
}

// Dup is a key written again.
type Dup struct {
	KV
	First int
}

// LastWins returns KVs with every duplicate key's last value (what
// Kubernetes and PyYAML keep).
func (m Mapping) LastWins() []KV {
	out := append([]KV(nil), m.KVs...)
	for _, d := range m.Dups {
		out[d.First] = d.KV
	}
	return out
}

// Get is the resolved value of key in kvs (nil when absent).
func Get(kvs []KV, key string) *yaml.Node {
	for _, kv := range kvs {
		if kv.Key == key {
			return Resolve(kv.Val)
		}
	}
	return nil
}

// maxMergeDepth bounds nested `<<` merges.
const maxMergeDepth = 32

// Pairs lists a mapping's entries (nil Mapping for anything else). Merged
// mappings are expanded once each (memo), so nested merges of aliases
// cannot blow up exponentially.
func Pairs(n *yaml.Node) Mapping {
	return pairs(n, map[*yaml.Node][]KV{}, 0)
}

func pairs(n *yaml.Node, memo map[*yaml.Node][]KV, depth int) Mapping {
	var m Mapping
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > maxMergeDepth {
		return m
	}
	index := map[string]int{}
	var merged []KV
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Resolve(n.Content[i]), n.Content[i+1]
		switch {
		case k == nil || k.Kind != yaml.ScalarNode:
			m.Odd = append(m.Odd, n.Content[i])
		case k.ShortTag() == "!!merge":
			merged = append(merged, mergeSources(v, memo, depth)...)
		default:
			kv := KV{Key: k.Value, KeyNode: k, Val: v}
			if first, dup := index[kv.Key]; dup {
				m.Dups = append(m.Dups, Dup{KV: kv, First: first})
				continue
			}
			index[kv.Key] = len(m.KVs)
			m.KVs = append(m.KVs, kv)
		}
	}
	for _, kv := range merged {
		if _, seen := index[kv.Key]; !seen {
			index[kv.Key] = len(m.KVs)
			m.KVs = append(m.KVs, kv)
		}
	}
	return m
}

// mergeSources is the entries a `<<` value brings: one mapping or a list
// of them, earlier ones winning.
func mergeSources(v *yaml.Node, memo map[*yaml.Node][]KV, depth int) []KV {
	src := Resolve(v)
	sources := []*yaml.Node{src}
	if src != nil && src.Kind == yaml.SequenceNode {
		sources = src.Content
	}
	var out []KV
	for _, s := range sources {
		s = Resolve(s)
		kvs, done := memo[s]
		if !done {
			memo[s] = nil // a mapping merging itself adds nothing
			kvs = pairs(s, memo, depth+1).KVs
			memo[s] = kvs
		}
		out = append(out, kvs...)
	}
	return out
}
