package kubeflow

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"gopkg.in/yaml.v3"
)

// This file holds the small YAML layer the reader needs on top of
// gopkg.in/yaml.v3: positions from yaml.Node, mapping access with
// Kubernetes' last-wins handling of duplicate keys, typed scalars, and the
// diagnostics helpers. Decoding into yaml.Node (never into Go structs) is
// what keeps line/column on every value and lets duplicate keys through
// (yaml.v3 rejects them only when decoding into maps or structs).

// reader collects diagnostics while one file is read.
type reader struct {
	path  string
	lossy bool
	diags hcl.Diagnostics
}

func (r *reader) pos(n *yaml.Node) jobs.Pos {
	if n == nil {
		return jobs.Pos{}
	}
	return jobs.Pos{File: r.path, Line: n.Line, Col: n.Column}
}

func (r *reader) errorf(n *yaml.Node, summary, detail string, args ...any) {
	r.diags = append(r.diags, jobs.Errorf(r.posOrFile(n), summary, detail, args...))
}

func (r *reader) warnf(n *yaml.Node, summary, detail string, args ...any) {
	r.diags = append(r.diags, jobs.Warnf(r.posOrFile(n), summary, detail, args...))
}

// lossyf reports content jobshift cannot carry and whose loss changes what
// the job does: an error, or a warning when the user chose -lossy.
func (r *reader) lossyf(n *yaml.Node, summary, detail string, args ...any) {
	if r.lossy {
		r.warnf(n, summary, detail+" (accepted because of -lossy)", args...)
		return
	}
	r.errorf(n, summary, detail+" Re-run with -lossy to convert the job without it.", args...)
}

// posOrFile gives diagnostics without a node the file's first position, so
// that every diagnostic is located.
func (r *reader) posOrFile(n *yaml.Node) jobs.Pos {
	if n == nil || n.Line == 0 {
		return jobs.Pos{File: r.path, Line: 1, Col: 1}
	}
	return r.pos(n)
}

// deref follows YAML aliases (*anchor). A bounded loop, because an alias
// may point at another alias.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

// scalar returns the text of a scalar node ("" for anything else).
func scalar(n *yaml.Node) string {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// isNull reports a missing value or an explicit YAML null (`key:`, `~`).
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

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
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode {
			r.warnf(k, "Ignored non-string key", "%s has a key that is not a plain string; Kubernetes rejects such keys, jobshift ignores it.", where)
			continue
		}
		if j, dup := m.index[k.Value]; dup {
			prev := m.fields[j].key
			r.warnf(k, "Duplicate key", "%s has the key %q twice (first at line %d); the last one wins, as in PyYAML and kubectl's JSON conversion. Remove one of them.", where, k.Value, prev.Line)
			m.fields[j] = field{k, v}
			continue
		}
		m.index[k.Value] = len(m.fields)
		m.fields = append(m.fields, field{k, v})
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
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err == nil {
			return v, true
		}
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
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		return strings.EqualFold(n.Value, "true"), true
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

// toAny converts a node to plain Go values (for fields kept verbatim, such
// as elasticPolicy). Duplicate keys resolve last-wins. Aliases are
// expanded, so the number of nodes visited is capped: `&a [*a, *a]`
// chains would otherwise grow exponentially (a "billion laughs").
func toAny(n *yaml.Node, budget *int) any {
	n = deref(n)
	*budget--
	if n == nil || *budget < 0 {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := deref(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode {
				m[k.Value] = toAny(n.Content[i+1], budget)
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, it := range n.Content {
			l = append(l, toAny(it, budget))
		}
		return l
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!int":
			if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
				return v
			}
		case "!!float":
			if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return v
			}
		case "!!bool":
			return strings.EqualFold(n.Value, "true")
		}
		return n.Value
	}
	return nil
}

// parseDocuments splits src into its YAML documents. A syntax error stops
// the split and is returned located at the line yaml.v3 names.
func (r *reader) parseDocuments(src []byte) ([]*yaml.Node, bool) {
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, true
		}
		if err != nil {
			if d := jobs.BlockCommentError(src, r.path); d != nil {
				r.diags = append(r.diags, d)
				return docs, false
			}
			line, col := errLine(err), 1
			if l, c, ok := jobs.YAMLErrorPos(src, err.Error()); ok && !lineRE.MatchString(err.Error()) {
				line, col = l, c
			}
			hint := "Fix the YAML syntax (indentation, quoting of {{...}} or : in values) and try again."
			if lines := strings.Split(string(src), "\n"); line <= len(lines) && strings.HasPrefix(strings.TrimLeft(lines[line-1], " "), "\t") {
				hint = "The line is indented with a tab; YAML allows only spaces for indentation."
			}
			r.diags = append(r.diags, jobs.Errorf(jobs.Pos{File: r.path, Line: line, Col: col},
				"Invalid YAML", "%s. %s", lineRE.ReplaceAllString(strings.TrimPrefix(err.Error(), "yaml: "), ""), hint))
			return docs, false
		}
		if len(docs) > 10000 {
			// A file of ten thousand `---` separators is no job file.
			r.errorf(nil, "Too many YAML documents", "The file holds more than 10000 documents; jobshift reads one job per file.")
			return docs, false
		}
		d := doc
		docs = append(docs, &d)
	}
}

var lineRE = regexp.MustCompile(`line (\d+): `)

// errLine extracts the line yaml.v3 puts into its error text (1 when it
// names none).
func errLine(err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil && n > 0 {
			return n
		}
	}
	return 1
}
