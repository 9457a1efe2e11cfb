package pai

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The <% %> rendering OpenPAI's rest-server applied to v2 commands at
// submission (spec/pai.md §2.2 step 1, pai:src/rest-server/src/middlewares/
// v2/protocol.js render()). It parses with the mustache.js tokenizer
// (delimiters <% %>), then walks the top-level tokens only:
//   - text is copied byte for byte (values are never escaped);
//   - a plain variable tag is looked up with `[N]` rewritten to `.N`; a
//     value that is not null/undefined is appended as JavaScript's
//     String(value), anything else is written back as `<% path %>` (this is
//     how `<% $secrets.x %>` survives for the runtime to render later);
//   - every other tag (sections with all their content, inverted sections,
//     comments, partials, {{{ }}}/& unescaped tags, delimiter changes) yields
//     nothing.
// The mustache.js tokenizer also drops the whitespace of a line that holds
// only non-variable tags, and throws on an unclosed tag or a mismatched
// section; PAI then refused the job, so those are errors here.
// Known difference: JavaScript prototype members (`<% $parameters.constructor %>`)
// are not emulated; such paths are treated as unresolved.

// renderError is a template the mustache.js tokenizer refuses; Offset is
// the byte offset in the template.
type renderError struct {
	Offset int
	Msg    string
}

func (e *renderError) Error() string { return e.Msg }

type mtoken struct {
	typ   byte // 't' text, 'n' name, or the mustache.js tag type character
	val   string
	start int
}

var indexRe = regexp.MustCompile(`\[(\d+)\]`)

// render renders template against ctx (keys "$parameters", "$data", ...).
func render(template string, ctx map[string]any) (string, *renderError) {
	out, _, err := renderRefs(template, ctx)
	return out, err
}

// renderRefs is render that also lists the paths it wrote back unresolved.
func renderRefs(template string, ctx map[string]any) (string, []string, *renderError) {
	tokens, err := tokenize(template, "<%", "%>")
	if err != nil {
		return "", nil, err
	}
	var unresolved []string
	var out strings.Builder
	depth := 0
	for _, t := range tokens {
		if t == nil {
			continue
		}
		switch t.typ {
		case '#', '^':
			depth++
		case '/':
			depth--
		case 't':
			if depth == 0 {
				out.WriteString(t.val)
			}
		case 'n':
			if depth > 0 {
				continue
			}
			path := indexRe.ReplaceAllString(t.val, ".$1")
			if v := lookup(ctx, path); v != nil {
				out.WriteString(jsString(v))
			} else {
				out.WriteString("<% " + path + " %>")
				unresolved = append(unresolved, path)
			}
		}
	}
	return jsTrim(out.String()), unresolved, nil
}

// lookup is mustache.js Context.lookup on a single context.
func lookup(ctx map[string]any, name string) any {
	if name == "." {
		return ctx
	}
	if strings.Index(name, ".") <= 0 {
		return ctx[name]
	}
	var v any = ctx
	for _, part := range strings.Split(name, ".") {
		if v == nil {
			return nil
		}
		v = jsProperty(v, part)
	}
	return v
}

// jsProperty is value[key] for the JavaScript values js-yaml produces (own
// properties, array/string indexes and length).
func jsProperty(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		return v[key]
	case []any:
		if key == "length" {
			return int64(len(v))
		}
		if i, ok := arrayIndex(key); ok && i < len(v) {
			return v[i]
		}
	case string:
		units := utf16.Encode([]rune(v))
		if key == "length" {
			return int64(len(units))
		}
		if i, ok := arrayIndex(key); ok && i < len(units) {
			return string(utf16.Decode(units[i : i+1]))
		}
	}
	return nil
}

// arrayIndex accepts the canonical decimal form JavaScript uses as an
// array index ("0", "12"; not "01" or "+1").
func arrayIndex(key string) (int, bool) {
	i, err := strconv.Atoi(key)
	if err != nil || i < 0 || strconv.Itoa(i) != key {
		return 0, false
	}
	return i, true
}

// tokenize is mustache.js parseTemplate (v2–v4): a flat token list in which
// whitespace removed by the standalone-line rule is nil.
func tokenize(tpl, open, close string) ([]*mtoken, *renderError) {
	var (
		tokens   []*mtoken
		sections []*mtoken
		spaces   []int
		hasTag   bool
		nonSpace bool
		pos      int
	)
	stripSpace := func() {
		if hasTag && !nonSpace {
			for _, i := range spaces {
				tokens[i] = nil
			}
		}
		spaces = spaces[:0]
		hasTag, nonSpace = false, false
	}
	for pos < len(tpl) {
		text := tpl[pos:]
		if i := strings.Index(text, open); i >= 0 {
			text = text[:i]
		}
		for off := 0; off < len(text); {
			r, n := utf8.DecodeRuneInString(text[off:])
			if isJSSpace(r) {
				spaces = append(spaces, len(tokens))
			} else {
				nonSpace = true
			}
			// Slice, not string(r): invalid UTF-8 bytes pass through as they are.
			tokens = append(tokens, &mtoken{typ: 't', val: text[off : off+n], start: pos + off})
			off += n
			if r == '\n' {
				stripSpace()
			}
		}
		pos += len(text)
		if !strings.HasPrefix(tpl[pos:], open) {
			break
		}
		start := pos
		pos = skipSpace(tpl, pos+len(open))
		hasTag = true
		typ := byte('n')
		if pos < len(tpl) && strings.IndexByte("#^/>{&=!", tpl[pos]) >= 0 {
			typ = tpl[pos]
			pos++
		}
		pos = skipSpace(tpl, pos)
		var value string
		switch typ {
		case '=':
			value, pos = scanUntil(tpl, pos, "=")
			pos = scanLit(tpl, pos, "=")
			_, pos = scanUntil(tpl, pos, close)
		case '{':
			value, pos = scanUntil(tpl, pos, "}"+close)
			pos = scanLit(tpl, pos, "}")
			_, pos = scanUntil(tpl, pos, close)
			typ = '&'
		default:
			value, pos = scanUntil(tpl, pos, close)
		}
		if !strings.HasPrefix(tpl[skipSpace(tpl, pos):], close) {
			return nil, &renderError{start, fmt.Sprintf("unclosed tag: %q is never closed with %q", open, close)}
		}
		pos = scanLit(tpl, pos, close)
		tok := &mtoken{typ: typ, val: value, start: start}
		tokens = append(tokens, tok)
		switch typ {
		case '#', '^':
			sections = append(sections, tok)
		case '/':
			if len(sections) == 0 {
				return nil, &renderError{start, fmt.Sprintf("unopened section %q: a closing tag without its opening tag", value)}
			}
			openSec := sections[len(sections)-1]
			sections = sections[:len(sections)-1]
			if openSec.val != value {
				return nil, &renderError{start, fmt.Sprintf("unclosed section %q", openSec.val)}
			}
		case 'n', '&':
			nonSpace = true
		case '=':
			parts := splitSpace(value)
			if len(parts) < 2 || parts[0] == "" {
				return nil, &renderError{start, fmt.Sprintf("invalid tags: %q", value)}
			}
			open, close = parts[0], parts[1]
		}
	}
	stripSpace()
	if len(sections) > 0 {
		s := sections[len(sections)-1]
		return nil, &renderError{s.start, fmt.Sprintf("unclosed section %q", s.val)}
	}
	return tokens, nil
}

// skipSpace skips JavaScript whitespace (the regexp \s*).
func skipSpace(s string, pos int) int {
	for pos < len(s) {
		r, n := utf8.DecodeRuneInString(s[pos:])
		if !isJSSpace(r) {
			break
		}
		pos += n
	}
	return pos
}

// scanUntil is Scanner.scanUntil(/\s*lit/): everything up to the whitespace
// run that precedes the first lit, or the rest of s when lit is absent.
func scanUntil(s string, pos int, lit string) (string, int) {
	i := strings.Index(s[pos:], lit)
	if i < 0 {
		return s[pos:], len(s)
	}
	end := pos + i
	for end > pos {
		r, n := utf8.DecodeLastRuneInString(s[pos:end])
		if !isJSSpace(r) {
			break
		}
		end -= n
	}
	return s[pos:end], end
}

// scanLit is Scanner.scan(/\s*lit/): it consumes whitespace and lit when
// they are next, and otherwise nothing.
func scanLit(s string, pos int, lit string) int {
	p := skipSpace(s, pos)
	if strings.HasPrefix(s[p:], lit) {
		return p + len(lit)
	}
	return pos
}

// splitSpace is value.split(/\s+/, 2).
func splitSpace(v string) []string {
	var parts []string
	for len(parts) < 2 {
		i := strings.IndexFunc(v, isJSSpace)
		if i < 0 {
			parts = append(parts, v)
			break
		}
		parts = append(parts, v[:i])
		v = v[skipSpace(v, i):]
	}
	return parts
}
