package pai

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"gopkg.in/yaml.v3"
)

// YAML access with positions (gopkg.in/yaml.v3 nodes), converting values
// the way js-yaml's safeLoad did for PAI's rest-server.

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// yamlDocs decodes every document of src. A syntax error ends decoding and
// is returned with the line yaml.v3 reports.
func yamlDocs(src []byte, file string) (docs []*yaml.Node, at jobs.Pos, err error) {
	docs, at, err = yamlDocsOnce(src, file)
	if err != nil && strings.Contains(err.Error(), "incompatible YAML document") && yaml12Re.Match(src) {
		// yaml.v3 only accepts `%YAML 1.1`; js-yaml (PAI) read 1.2 files too.
		// The directive is rewritten in place (same length, so positions hold).
		return yamlDocsOnce(yaml12Re.ReplaceAll(src, []byte("${1}1.1")), file)
	}
	return docs, at, err
}

var yaml12Re = regexp.MustCompile(`(?m)^(%YAML[ \t]+)1\.2`)

func yamlDocsOnce(src []byte, file string) (docs []*yaml.Node, at jobs.Pos, err error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 must never take the process down
			at, err = jobs.Pos{File: file, Line: 1, Col: 1}, fmt.Errorf("YAML parser failure: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var n yaml.Node
		e := dec.Decode(&n)
		if errors.Is(e, io.EOF) {
			return docs, jobs.Pos{}, nil
		}
		if e != nil {
			at = jobs.Pos{File: file, Line: 1, Col: 1}
			if m := yamlLineRe.FindStringSubmatch(e.Error()); m != nil {
				at.Line, _ = strconv.Atoi(m[1])
			} else if l, c, ok := jobs.YAMLErrorPos(src, e.Error()); ok {
				at.Line, at.Col = l, c
			}
			return docs, at, e
		}
		docs = append(docs, &n)
	}
}

// docRoot returns the content of a document node (nil for an empty one).
func docRoot(d *yaml.Node) *yaml.Node {
	if d.Kind == yaml.DocumentNode {
		if len(d.Content) == 0 {
			return nil
		}
		return d.Content[0]
	}
	return d
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

type ykv struct {
	Key    string
	KeyPos jobs.Pos
	Val    *yaml.Node
}

// pairs lists a mapping's entries in order, with `<<` merge keys expanded
// after the explicit keys (explicit keys win, as in js-yaml). dups lists
// keys written twice. Merged mappings are expanded once each (memo), so
// nested merges of aliases cannot blow up exponentially.
func pairs(n *yaml.Node, file string) (kvs []ykv, dups []ykv) {
	return pairsMemo(n, file, map[*yaml.Node][]ykv{}, 0)
}

func pairsMemo(n *yaml.Node, file string, memo map[*yaml.Node][]ykv, depth int) (kvs []ykv, dups []ykv) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > 32 {
		return nil, nil
	}
	seen := map[string]bool{}
	var merged []ykv
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		kv := ykv{Key: k.Value, KeyPos: posOf(k, file), Val: v}
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			src := resolve(v)
			var sources []*yaml.Node
			if src != nil && src.Kind == yaml.SequenceNode {
				sources = src.Content
			} else {
				sources = []*yaml.Node{src}
			}
			for _, s := range sources {
				s = resolve(s)
				m, done := memo[s]
				if !done {
					memo[s] = nil // a mapping merging itself adds nothing
					m, _ = pairsMemo(s, file, memo, depth+1)
					memo[s] = m
				}
				merged = append(merged, m...)
			}
			continue
		}
		if seen[kv.Key] {
			dups = append(dups, kv)
			continue
		}
		seen[kv.Key] = true
		kvs = append(kvs, kv)
	}
	for _, m := range merged {
		if !seen[m.Key] {
			seen[m.Key] = true
			kvs = append(kvs, m)
		}
	}
	return kvs, dups
}

func get(kvs []ykv, key string) *yaml.Node {
	for _, kv := range kvs {
		if kv.Key == key {
			return resolve(kv.Val)
		}
	}
	return nil
}

func posOf(n *yaml.Node, file string) jobs.Pos {
	if n == nil {
		return jobs.Pos{File: file}
	}
	return jobs.Pos{File: file, Line: n.Line, Col: n.Column}
}

// kindName names what a node holds, for messages.
func kindName(n *yaml.Node) string {
	switch n = resolve(n); {
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

// maxValueNodes bounds yamlValue's work so alias bombs stay cheap.
const maxValueNodes = 100000

// yamlValue converts a node to the value js-yaml would have produced:
// nil, bool, int64 (*big.Int when too large), float64, string, []any,
// map[string]any. Timestamps and binary stay strings (js-yaml made them a
// Date / Buffer, which no job file renders).
func yamlValue(n *yaml.Node) any {
	v, _ := yamlValueOK(n)
	return v
}

// yamlValueOK is yamlValue that also reports whether the whole value was
// converted: false when it expands past maxValueNodes nodes or 200 levels
// (an alias bomb), where yamlValue leaves nils.
func yamlValueOK(n *yaml.Node) (any, bool) {
	budget := maxValueNodes
	v := yamlValueB(n, &budget, 0)
	return v, budget >= 0
}

func yamlValueB(n *yaml.Node, budget *int, depth int) any {
	n = resolve(n)
	*budget--
	if depth > 200 {
		*budget = -1 // too deep counts as too large
	}
	if n == nil || *budget < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		kvs, _ := pairs(n, "")
		for _, kv := range kvs {
			m[kv.Key] = yamlValueB(kv.Val, budget, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, yamlValueB(c, budget, depth+1))
		}
		return s
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil
}

func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
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
