package pai

import (
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

// kindName names what a node holds, for messages.
func kindName(n *yaml.Node) string {
	switch n = yamlpos.Resolve(n); {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode && len(n.Content) == 0:
		return "an empty list"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return "a string"
}

// yamlValue converts a node to the value js-yaml would have produced (see
// yamlpos.Value; duplicate keys, which PAI refused and the reader reports,
// keep their first value). An alias bomb leaves nils.
func yamlValue(n *yaml.Node) any {
	v, _ := yamlpos.Value(n, yamlpos.ValueOptions{})
	return v
}
