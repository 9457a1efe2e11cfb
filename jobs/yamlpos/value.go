package yamlpos

import (
	"math/big"

	"go.yaml.in/yaml/v3"
)

// MaxValueNodes bounds Value's work, so alias bombs (`&a [*a, *a]` chains
// that grow exponentially when expanded) stay cheap.
const MaxValueNodes = 100000

// maxValueDepth bounds nesting; deeper counts as too large.
const maxValueDepth = 200

// ValueOptions are a reader's choices for Value.
type ValueOptions struct {
	// LastWins: a duplicate key's last value (Kubernetes); else the first.
	LastWins bool
	// MaxNodes bounds the nodes visited; 0 means MaxValueNodes.
	MaxNodes int
}

// Value converts n to plain Go values: nil, bool, int64 (*big.Int when too
// large), float64, string, []any, map[string]any. Timestamps and binary
// stay strings. ok is false when the value expands past the node limit or
// maxValueDepth levels (an alias bomb); the parts not converted are nil.
func Value(n *yaml.Node, o ValueOptions) (v any, ok bool) {
	budget := o.MaxNodes
	if budget <= 0 {
		budget = MaxValueNodes
	}
	v = value(n, o.LastWins, &budget, 0)
	return v, budget >= 0
}

func value(n *yaml.Node, lastWins bool, budget *int, depth int) any {
	n = Resolve(n)
	*budget--
	if depth > maxValueDepth {
		*budget = -1
	}
	if n == nil || *budget < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		p := Pairs(n)
		kvs := p.KVs
		if lastWins {
			kvs = p.LastWins()
		}
		for _, kv := range kvs {
			m[kv.Key] = value(kv.Val, lastWins, budget, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, value(c, lastWins, budget, depth+1))
		}
		return s
	case yaml.ScalarNode:
		return Scalar(n)
	}
	return nil
}

// Scalar is the typed value of a scalar node by its resolved tag, as the
// parser reads it (0x1F, 1_000, .inf, yes/no are not booleans in YAML
// 1.2's core schema, ...): nil, bool, int64 or *big.Int, float64, else
// the text.
func Scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		if b, ok := Bool(n); ok {
			return b
		}
	case "!!int":
		if i, ok := Int(n); ok {
			return i
		}
		if b, ok := new(big.Int).SetString(n.Value, 0); ok {
			return b
		}
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	}
	return n.Value
}

// Int is an !!int scalar that fits int64.
func Int(n *yaml.Node) (int64, bool) {
	n = Resolve(n)
	var i int64
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
		return 0, false
	}
	return i, true
}

// Bool is a !!bool scalar.
func Bool(n *yaml.Node) (bool, bool) {
	n = Resolve(n)
	var b bool
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
		return false, false
	}
	return b, true
}
