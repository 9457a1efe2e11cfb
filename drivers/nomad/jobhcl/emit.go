package jobhcl

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apparentlymart/go-textseg/v15/textseg"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
)

// The direct emitter: Marshal writes the jobspec in one pass, already
// in hclwrite.Format's canonical layout, instead of building an hclwrite
// tree and re-lexing the whole output to format it (which cost half of a
// Nomad render, most of it counting grapheme clusters token by token).
// The layout rules it reproduces (hclwrite/format.go):
//   - two spaces of indentation per open block or object;
//   - `=` of consecutive single-line attributes of one body aligned one
//     column after the longest name (a heredoc attribute is one such
//     line: its body is not a line of the body); a line that opens an
//     object (`name = {`) ends the run and is written with one space;
//   - `[a, b]` lists, `{}`-less empty blocks written as `name {` `}`.
// Values it cannot lay out that way (an object inside a list) make it
// return errNotDirect, and Marshal falls back to hclwrite + Format
// (marshalFormat); TestMarshalDirectEqualsFormat holds the two
// byte-identical.

var errNotDirect = errors.New("value needs hclwrite's formatter")

type emitter struct {
	b []byte
}

// line is one attribute of a body: its key as written, its width in
// columns, and its value; open marks a value that opens a multi-line
// object (it ends the run of aligned lines).
type line struct {
	key  string
	cols int
	val  string
	open bool
	// heredoc is the delimiter when val is a heredoc's body (written
	// as <<delim, newline, val, delim: a body of hundreds of KiB is
	// copied once, into the output)
	heredoc string
}

// value appends l's value.
func (e *emitter) value(l line) {
	if l.heredoc == "" {
		e.b = append(e.b, l.val...)
		return
	}
	e.b = append(e.b, "<<"...)
	e.b = append(e.b, l.heredoc...)
	e.b = append(e.b, '\n')
	e.b = append(e.b, l.val...)
	e.b = append(e.b, l.heredoc...)
}

func (e *emitter) indent(depth int) {
	for range depth {
		e.b = append(e.b, ' ', ' ')
	}
}

// lines writes the attributes of one body at depth, aligning runs.
func (e *emitter) lines(ls []line, depth int) {
	for i := 0; i < len(ls); {
		if ls[i].open {
			e.indent(depth)
			e.b = append(e.b, ls[i].key...)
			e.b = append(e.b, " = "...)
			e.value(ls[i])
			e.b = append(e.b, '\n')
			i++
			continue
		}
		j, w := i, 0
		for ; j < len(ls) && !ls[j].open; j++ {
			w = max(w, ls[j].cols)
		}
		for _, l := range ls[i:j] {
			e.indent(depth)
			e.b = append(e.b, l.key...)
			for range w - l.cols + 1 {
				e.b = append(e.b, ' ')
			}
			e.b = append(e.b, "= "...)
			e.value(l)
			e.b = append(e.b, '\n')
		}
		i = j
	}
}

// fieldInfo is one `hcl`-tagged field of a struct type.
type fieldInfo struct {
	name  string
	kind  string // "attr", "block", "label"
	index int
}

var fieldCache sync.Map // reflect.Type → []fieldInfo

// fieldsOfType lists t's hcl fields once per type.
func fieldsOfType(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var out []fieldInfo
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("hcl")
		if !ok || !sf.IsExported() {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		kind := "attr"
		switch opt {
		case "block":
			kind = "block"
		case "label":
			kind = "label"
		case "remain":
			continue
		}
		out = append(out, fieldInfo{name: name, kind: kind, index: i})
	}
	fieldCache.Store(t, out)
	return out
}

// body writes v's set attributes, then its blocks, at depth.
func (e *emitter) body(v reflect.Value, skip map[string]bool, depth int) error {
	v = portBlocks(v)
	fields := fieldsOfType(v.Type())
	var ls []line
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.kind != "attr" || skip[f.name] || isUnset(fv) {
			continue
		}
		l, err := attrLine(f.name, fv, depth)
		if err != nil {
			return err
		}
		ls = append(ls, l)
	}
	e.lines(ls, depth)
	for _, f := range fields {
		fv := v.Field(f.index)
		if f.kind != "block" || skip[f.name] || isUnset(fv) {
			continue
		}
		if err := e.blocks(f.name, fv, depth); err != nil {
			return err
		}
	}
	return nil
}

// attrLine is attribute name = v of a body at depth.
func attrLine(name string, v reflect.Value, depth int) (line, error) {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if name == "data" && v.Kind() == reflect.String {
		if delim, body, ok := heredocParts(v.String()); ok {
			return line{key: name, cols: len(name), val: body, heredoc: delim}, nil
		}
	}
	val, open, err := valueText(v, depth)
	if err != nil {
		return line{}, fmt.Errorf("%s: %w", name, err)
	}
	return line{key: name, cols: len(name), val: val, open: open}, nil
}

// valueText is v as an HCL expression on a line at depth; open reports a
// multi-line object.
func valueText(v reflect.Value, depth int) (string, bool, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "null", false, nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == durationType:
		s, err := quoted(time.Duration(v.Int()).String())
		return s, false, err
	case v.Kind() == reflect.String:
		s, err := quoted(v.String())
		return s, false, err
	case v.Kind() == reflect.Slice:
		var b strings.Builder
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			s, open, err := valueText(v.Index(i), depth)
			if err != nil {
				return "", false, err
			}
			if open {
				return "", false, errNotDirect
			}
			b.WriteString(s)
		}
		b.WriteByte(']')
		return b.String(), false, nil
	case v.Kind() == reflect.Map:
		s, err := objectText(v, depth)
		return s, true, err
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool()), false, nil
	case v.CanInt():
		return strconv.FormatInt(v.Int(), 10), false, nil
	case v.CanUint():
		return strconv.FormatUint(v.Uint(), 10), false, nil
	}
	cv, err := ctyOf(v)
	if err != nil {
		return "", false, err
	}
	if !cv.Type().Equals(cty.Number) {
		return "", false, errNotDirect
	}
	return string(hclwrite.TokensForValue(cv).Bytes()), false, nil
}

// objectText is an object constructor with sorted keys whose `{` ends a
// line at depth.
func objectText(v reflect.Value, depth int) (string, error) {
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	ls := make([]line, 0, len(keys))
	for _, k := range keys {
		key, cols, err := keyText(k)
		if err != nil {
			return "", err
		}
		val, open, err := valueText(v.MapIndex(reflect.ValueOf(k)), depth+1)
		if err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		ls = append(ls, line{key: key, cols: cols, val: val, open: open})
	}
	var e emitter
	e.b = append(e.b, "{\n"...)
	e.lines(ls, depth+1)
	e.indent(depth)
	e.b = append(e.b, '}')
	return string(e.b), nil
}

// keyText is an object key as keyTokens writes it, and its width.
func keyText(k string) (string, int, error) {
	if hclsyntax.ValidIdentifier(k) && isASCII(k) {
		return k, len(k), nil
	}
	s, err := quoted(k)
	if err != nil {
		return "", 0, err
	}
	return s, columns(s), nil
}

// columns counts grapheme clusters, as hclwrite aligns by them.
func columns(s string) int {
	if isASCII(s) && !strings.Contains(s, "\r\n") {
		return len(s)
	}
	n := 0
	b := []byte(s)
	for len(b) > 0 {
		adv, _, _ := textseg.ScanGraphemeClusters(b, true)
		if adv <= 0 {
			adv = 1
		}
		b = b[adv:]
		n++
	}
	return n
}

// quoted is s as quotedTokens writes it.
func quoted(s string) (string, error) {
	toks, err := quotedTokens(s)
	if err != nil {
		return "", err
	}
	if len(toks) == 2 {
		return `""`, nil
	}
	return `"` + string(toks[1].Bytes) + `"`, nil
}

func (e *emitter) blocks(name string, v reflect.Value, depth int) error {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if err := e.blocks(name, v.Index(i), depth); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if isBlockMap(v) {
			for _, k := range sortedKeys(v) {
				if err := e.blocks(name, v.MapIndex(k), depth); err != nil {
					return err
				}
			}
			return nil
		}
		return e.mapBlock(name, v, depth)
	case reflect.Struct:
		var labels []string
		for _, f := range fieldsOfType(v.Type()) {
			if f.kind == "label" {
				lv := v.Field(f.index)
				for lv.Kind() == reflect.Pointer {
					lv = lv.Elem()
				}
				labels = append(labels, lv.String())
			}
		}
		e.open(name, labels, depth)
		if err := e.body(v, nil, depth+1); err != nil {
			return err
		}
		e.close(depth)
		return nil
	}
	return fmt.Errorf("%s: cannot write %s as a block", name, v.Kind())
}

// open writes a block header; labels are quoted as hclwrite quotes them
// (through cty, which normalises to NFC).
func (e *emitter) open(name string, labels []string, depth int) {
	e.indent(depth)
	e.b = append(e.b, name...)
	for _, l := range labels {
		e.b = append(e.b, ' ')
		e.b = append(e.b, hclwrite.TokensForValue(cty.StringVal(l)).Bytes()...)
	}
	e.b = append(e.b, " {\n"...)
}

func (e *emitter) close(depth int) {
	e.indent(depth)
	e.b = append(e.b, "}\n"...)
}

// mapBlock is writeMapBlock in one pass.
func (e *emitter) mapBlock(name string, v reflect.Value, depth int) error {
	keys, allIdent := mapKeys(v)
	if !allIdent && name != "config" {
		s, err := objectText(v, depth)
		if err != nil {
			return fmt.Errorf("%s.%w", name, err)
		}
		e.lines([]line{{key: name, cols: len(name), val: s, open: true}}, depth)
		return nil
	}
	ls := make([]line, 0, len(keys))
	for _, k := range keys {
		if !hclsyntax.ValidIdentifier(k) {
			return fmt.Errorf("%s: key %q is not an HCL identifier", name, k)
		}
		l, err := attrLine(k, v.MapIndex(reflect.ValueOf(k)), depth+1)
		if err != nil {
			return err
		}
		ls = append(ls, l)
	}
	e.open(name, nil, depth)
	e.lines(ls, depth+1)
	e.close(depth)
	return nil
}

// portBlocks applies staticPortsAsPortBlocks to a network.
func portBlocks(v reflect.Value) reflect.Value {
	if v.Type() != networkType {
		return v
	}
	if n := v.Interface().(api.NetworkResource); len(n.ReservedPorts) > 0 {
		return reflect.ValueOf(staticPortsAsPortBlocks(n))
	}
	return v
}

var networkType = reflect.TypeOf(api.NetworkResource{})
