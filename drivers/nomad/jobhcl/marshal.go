package jobhcl

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
)

// Marshal writes job as an HCL2 jobspec that `nomad job run` accepts
// and that Nomad's parser (jobspec2, /v1/jobs/parse) reads back to the same
// api.Job. Nomad has no encoder (spec/nomad.md §6), so this walks the api
// types by their `hcl` struct tags — the same tags jobspec2 decodes with —
// which keeps the output in step with the api module. Only set fields are
// written: the job should be sparse, Nomad fills in its defaults.
//
// Strings go through hclwrite's literal encoding (`${` → `$${`, `%{` →
// `%%{`, quotes and control characters escaped), so nothing a user wrote is
// interpreted by HCL. Template bodies that are whole lines are written as
// heredocs with the same two escapes, for readability.
func Marshal(job *api.Job) ([]byte, error) {
	return AppendMarshal(nil, job)
}

// AppendMarshal appends Marshal's text to dst, so that a caller writing
// something before the job (the Nomad driver's header of comments) does
// not copy a document that, for a job of many roles, is hundreds of MB.
func AppendMarshal(dst []byte, job *api.Job) ([]byte, error) {
	if job == nil || job.ID == nil || *job.ID == "" {
		return nil, fmt.Errorf("nomad job has no ID")
	}
	skip := map[string]bool{"id": true}
	if job.Name != nil && *job.Name == *job.ID {
		skip["name"] = true // the default; keep the file minimal
	}
	e := &emitter{b: append(make([]byte, 0, len(dst)+16<<10+templateBytes(job)), dst...)}
	e.open("job", []string{*job.ID}, 0)
	err := e.body(reflect.ValueOf(job).Elem(), skip, 1)
	if errors.Is(err, errNotDirect) {
		b, err := marshalFormat(job)
		return append(dst, b...), err
	}
	if err != nil {
		return nil, err
	}
	e.close(0)
	return e.b, nil
}

// templateBytes is the size of job's embedded templates: most of the
// output of a large job, so the emitter starts with room for them.
func templateBytes(job *api.Job) int {
	n := 0
	for _, g := range job.TaskGroups {
		for _, t := range g.Tasks {
			for _, tp := range t.Templates {
				if tp.EmbeddedTmpl != nil {
					n += len(*tp.EmbeddedTmpl) + 4<<10 // + the task around it
				}
			}
		}
	}
	return n
}

// marshalFormat is Marshal through an hclwrite tree formatted by
// hclwrite.Format: the fallback for values the direct emitter does not lay
// out, and the reference it is tested against.
func marshalFormat(job *api.Job) ([]byte, error) {
	f := hclwrite.NewEmptyFile()
	b := f.Body().AppendNewBlock("job", []string{*job.ID}).Body()
	if err := writeStruct(b, reflect.ValueOf(job).Elem(), map[string]bool{"id": true}); err != nil {
		return nil, err
	}
	if job.Name != nil && *job.Name == *job.ID {
		b.RemoveAttribute("name") // the default; keep the file minimal
	}
	return hclwrite.Format(f.Bytes()), nil
}

var durationType = reflect.TypeOf(time.Duration(0))

type hclField struct {
	name  string
	kind  string // "attr", "block", "label"
	value reflect.Value
}

func fieldsOf(v reflect.Value) []hclField {
	fields := fieldsOfType(v.Type())
	out := make([]hclField, 0, len(fields))
	for _, f := range fields {
		out = append(out, hclField{name: f.name, kind: f.kind, value: v.Field(f.index)})
	}
	return out
}

// writeStruct writes v's set attributes first, then its blocks, each in
// struct order (the order of Nomad's own documentation examples).
func writeStruct(b *hclwrite.Body, v reflect.Value, skip map[string]bool) error {
	if n, ok := v.Interface().(api.NetworkResource); ok && len(n.ReservedPorts) > 0 {
		v = reflect.ValueOf(staticPortsAsPortBlocks(n))
	}
	fields := fieldsOf(v)
	for _, f := range fields {
		if f.kind != "attr" || skip[f.name] || isUnset(f.value) {
			continue
		}
		if err := writeAttr(b, f.name, f.value); err != nil {
			return err
		}
	}
	for _, f := range fields {
		if f.kind != "block" || skip[f.name] || isUnset(f.value) {
			continue
		}
		if err := writeBlocks(b, f.name, f.value); err != nil {
			return err
		}
	}
	return nil
}

// isUnset: nil pointers, empty slices and maps, and zero plain values.
// A pointer to a zero value is set (attempts = 0 is a decision).
func isUnset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}

func writeAttr(b *hclwrite.Body, name string, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if name == "data" && v.Kind() == reflect.String {
		if toks := heredoc(v.String()); toks != nil {
			b.SetAttributeRaw(name, toks)
			return nil
		}
	}
	toks, err := valueTokens(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b.SetAttributeRaw(name, toks)
	return nil
}

// valueTokens writes v as an HCL expression. Strings (also inside lists and
// maps) are written by quotedTokens, not through cty.StringVal, which
// normalises to NFC (e + U+0301 became é in the file); other scalars go
// through cty, which does not change them.
func valueTokens(v reflect.Value) (hclwrite.Tokens, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return hclwrite.TokensForValue(cty.NullVal(cty.DynamicPseudoType)), nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == durationType:
	case v.Kind() == reflect.String:
		return quotedTokens(v.String())
	case v.Kind() == reflect.Slice:
		return listTokens(v)
	case v.Kind() == reflect.Map:
		return mapTokens(v)
	}
	cv, err := ctyOf(v)
	if err != nil {
		return nil, err
	}
	return hclwrite.TokensForValue(cv), nil
}

func listTokens(v reflect.Value) (hclwrite.Tokens, error) {
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")}}
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")})
		}
		et, err := valueTokens(v.Index(i))
		if err != nil {
			return nil, err
		}
		toks = append(toks, et...)
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")}), nil
}

// mapTokens writes an object with sorted keys.
func mapTokens(v reflect.Value) (hclwrite.Tokens, error) {
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOBrace, Bytes: []byte("{")}, {Type: hclsyntax.TokenNewline, Bytes: []byte("\n")}}
	for _, k := range keys {
		kt, err := keyTokens(k)
		if err != nil {
			return nil, err
		}
		vt, err := valueTokens(v.MapIndex(reflect.ValueOf(k)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		toks = append(append(append(toks, kt...), &hclwrite.Token{Type: hclsyntax.TokenEqual, Bytes: []byte("=")}), vt...)
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenNewline, Bytes: []byte("\n")})
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrace, Bytes: []byte("}")}), nil
}

// keyTokens writes an ASCII identifier bare (as hclwrite did) and any
// other key quoted.
func keyTokens(k string) (hclwrite.Tokens, error) {
	if hclsyntax.ValidIdentifier(k) && isASCII(k) {
		return hclwrite.Tokens{{Type: hclsyntax.TokenIdent, Bytes: []byte(k)}}, nil
	}
	return quotedTokens(k)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// quotedTokens is s as a quoted HCL string with hclwrite's escapes (`${` →
// `$${`, `%{` → `%%{`, quote, backslash, \n \r \t, other non-printing
// runes as \u escapes) and every other byte as written. HCL source is
// UTF-8: invalid UTF-8 cannot be written (the readers refuse it anyway).
func quotedTokens(s string) (hclwrite.Tokens, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("value %q is not valid UTF-8, which HCL cannot carry", s)
	}
	var buf strings.Builder
	for i, r := range s {
		switch r {
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		case '"':
			buf.WriteString(`\"`)
		case '\\':
			buf.WriteString(`\\`)
		case '$', '%':
			buf.WriteRune(r)
			if strings.HasPrefix(s[i+1:], "{") {
				buf.WriteRune(r)
			}
		default:
			if !unicode.IsPrint(r) {
				if r < 0x10000 {
					fmt.Fprintf(&buf, "\\u%04x", r)
				} else {
					fmt.Fprintf(&buf, "\\U%08x", r)
				}
			} else {
				buf.WriteRune(r)
			}
		}
	}
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOQuote, Bytes: []byte(`"`)}}
	if buf.Len() > 0 {
		toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenQuotedLit, Bytes: []byte(buf.String())})
	}
	return append(toks, &hclwrite.Token{Type: hclsyntax.TokenCQuote, Bytes: []byte(`"`)}), nil
}

func writeBlocks(b *hclwrite.Body, name string, v reflect.Value) error {
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if err := writeBlocks(b, name, v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if isBlockMap(v) {
			for _, k := range sortedKeys(v) {
				if err := writeBlocks(b, name, v.MapIndex(k)); err != nil {
					return err
				}
			}
			return nil
		}
		return writeMapBlock(b, name, v)
	case reflect.Struct:
		var labels []string
		for _, f := range fieldsOf(v) {
			if f.kind == "label" {
				lv := f.value
				for lv.Kind() == reflect.Pointer {
					lv = lv.Elem()
				}
				labels = append(labels, lv.String())
			}
		}
		nb := b.AppendNewBlock(name, labels).Body()
		return writeStruct(nb, v, nil)
	}
	return fmt.Errorf("%s: cannot write %s as a block", name, v.Kind())
}

// isBlockMap: a map of labelled blocks by their label (a group's
// volume "NAME" { ... } blocks: api.TaskGroup.Volumes), not of attributes.
func isBlockMap(v reflect.Value) bool {
	t := v.Type().Elem()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// sortedKeys are a string-keyed map's keys in order.
func sortedKeys(v reflect.Value) []reflect.Value {
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// writeMapBlock writes meta/env/config. Keys that are not HCL identifiers
// (env names with dots, for instance) cannot be block attributes; jobspec2
// also accepts `name = { "k" = "v" }`, which takes any key.
func writeMapBlock(b *hclwrite.Body, name string, v reflect.Value) error {
	keys, allIdent := mapKeys(v)
	if !allIdent && name != "config" {
		toks, err := mapTokens(v)
		if err != nil {
			return fmt.Errorf("%s.%w", name, err)
		}
		b.SetAttributeRaw(name, toks)
		return nil
	}
	nb := b.AppendNewBlock(name, nil).Body()
	for _, k := range keys {
		if !hclsyntax.ValidIdentifier(k) {
			return fmt.Errorf("%s: key %q is not an HCL identifier", name, k)
		}
		if err := writeAttr(nb, k, v.MapIndex(reflect.ValueOf(k))); err != nil {
			return err
		}
	}
	return nil
}

func ctyOf(v reflect.Value) (cty.Value, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return cty.NullVal(cty.DynamicPseudoType), nil
		}
		v = v.Elem()
	}
	if v.Type() == durationType {
		return cty.StringVal(time.Duration(v.Int()).String()), nil
	}
	switch v.Kind() {
	case reflect.String:
		return cty.StringVal(v.String()), nil
	case reflect.Bool:
		return cty.BoolVal(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cty.NumberIntVal(v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return cty.NumberUIntVal(v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return cty.NumberFloatVal(v.Float()), nil
	case reflect.Slice:
		if v.Len() == 0 {
			return cty.ListValEmpty(cty.String), nil
		}
		vals := make([]cty.Value, v.Len())
		for i := range vals {
			cv, err := ctyOf(v.Index(i))
			if err != nil {
				return cty.NilVal, err
			}
			vals[i] = cv
		}
		return cty.TupleVal(vals), nil
	case reflect.Map:
		obj := map[string]cty.Value{}
		for _, k := range v.MapKeys() {
			cv, err := ctyOf(v.MapIndex(k))
			if err != nil {
				return cty.NilVal, err
			}
			obj[k.String()] = cv
		}
		return cty.ObjectVal(obj), nil
	}
	return cty.NilVal, fmt.Errorf("unsupported value of kind %s", v.Kind())
}

// heredoc returns `<<EOT ... EOT` tokens for s, or nil when s is not a
// good heredoc (empty, or not ending in a newline: a heredoc always does).
// Inside a heredoc only `${` and `%{` are special.
func heredoc(s string) hclwrite.Tokens {
	delim, body, ok := heredocParts(s)
	if !ok {
		return nil
	}
	return hclwrite.Tokens{
		{Type: hclsyntax.TokenOHeredoc, Bytes: []byte("<<" + delim + "\n")},
		{Type: hclsyntax.TokenStringLit, Bytes: []byte(body)},
		{Type: hclsyntax.TokenCHeredoc, Bytes: []byte(delim)},
	}
}

// heredocParts are the delimiter (EOT, or EOT<n> when a line of s is EOT)
// and the escaped body of s as a heredoc.
func heredocParts(s string) (delim, body string, ok bool) {
	// (IndexByte, not ContainsAny: env templates of large jobs are
	// hundreds of KiB, and IndexByte is vectorised)
	if s == "" || !strings.HasSuffix(s, "\n") || strings.IndexByte(s, '\r') >= 0 || strings.IndexByte(s, 0) >= 0 {
		return "", "", false
	}
	delim = "EOT"
	for i := 1; hasLine(s, delim); i++ {
		delim = fmt.Sprintf("EOT%d", i)
	}
	if !strings.Contains(s, "${") && !strings.Contains(s, "%{") {
		return delim, s, true // nothing to escape: no copy
	}
	return delim, heredocEscaper.Replace(s), true
}

// hasLine: some line of s is l, ignoring surrounding white space.
func hasLine(s, l string) bool {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if len(line) >= len(l) && strings.TrimSpace(line) == l {
			return true
		}
	}
	return false
}

// heredocEscaper is built once (a Replacer compiles its table on first use).
var heredocEscaper = strings.NewReplacer("${", "$${", "%{", "%%{")

// CheckSyntax checks that src is syntactically valid HCL (the
// full decode is Nomad's; tests use the agent's /v1/jobs/parse).
func CheckSyntax(src []byte, filename string) hcl.Diagnostics {
	_, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	return diags
}

// staticPortsAsPortBlocks returns n with its static ports written the way
// jobspecs write them: `port "<label>" { static = N }` blocks, before the
// dynamic ones (jobspec2 decodes every port block into DynamicPorts, then
// moves those with a static value to ReservedPorts; a reserved_ports block
// does not exist in the jobspec).
func staticPortsAsPortBlocks(n api.NetworkResource) api.NetworkResource {
	n.DynamicPorts = append(append([]api.Port(nil), n.ReservedPorts...), n.DynamicPorts...)
	n.ReservedPorts = nil
	return n
}

// mapKeys returns a string-keyed map's keys in order, and whether every key
// is an HCL identifier (and so can be a block attribute).
func mapKeys(v reflect.Value) (keys []string, allIdent bool) {
	keys = make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	allIdent = true
	for _, k := range keys {
		if !hclsyntax.ValidIdentifier(k) {
			allIdent = false
		}
	}
	return keys, allIdent
}
