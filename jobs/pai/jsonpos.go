package pai

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// A small JSON parser that keeps the line:col of every value and key.
//
// encoding/json has no positions, and real PAI v1 files are not strict JSON:
// the job tutorials carry `//` comments, some files start with a BOM, use
// CRLF or tabs, or lack a final newline. This parser accepts exactly JSON
// plus `//` and `/* */` comments and a leading UTF-8 BOM; the extensions
// PAI's own JSON.parse would have refused (trailing commas, a raw TAB inside
// a string) are accepted with a warning so that the user learns about them.
// Columns count Unicode code points (a TAB is one column).

type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jObject
	jArray
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "object", "array"}[k]
}

// jnode is one JSON value with its position.
type jnode struct {
	Kind    jkind
	Pos     jobs.Pos
	Str     string // string value, or the number exactly as written
	Bool    bool
	Members []jmember // objects, in file order, duplicates included
	Elems   []*jnode  // arrays
}

type jmember struct {
	Key    string
	KeyPos jobs.Pos
	Val    *jnode
}

// get returns the value of key, the last one when the key is repeated
// (JSON.parse keeps the last value too), or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.Kind != jObject {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Val
		}
	}
	return nil
}

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 512

type jparser struct {
	src   []byte
	off   int
	line  int
	col   int
	file  string
	depth int
	diags hcl.Diagnostics
}

// errJSONSyntax unwinds the parser on the first syntax error.
type errJSONSyntax struct{ diag *hcl.Diagnostic }

// parseJSON parses src. On a syntax error it returns nil and one located
// error; warnings for tolerated oddities are returned either way.
func parseJSON(src []byte, file string) (root *jnode, diags hcl.Diagnostics) {
	p := &jparser{src: src, line: 1, col: 1, file: file}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.off = 3 // the BOM is not part of the text; columns start after it
	}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(errJSONSyntax)
			if !ok {
				panic(r)
			}
			root = nil
			diags = append(p.diags, e.diag)
		}
	}()
	p.skipSpace()
	if p.off >= len(p.src) {
		p.fail("Empty file", "The file holds no JSON value; an OpenPAI v1 job is a JSON object.")
	}
	root = p.value()
	p.skipSpace()
	if p.off < len(p.src) {
		p.fail("Extra text after the JSON value", "Only one JSON object may be in the file; remove what follows the closing brace.")
	}
	return root, p.diags
}

func (p *jparser) pos() jobs.Pos { return jobs.Pos{File: p.file, Line: p.line, Col: p.col} }

func (p *jparser) fail(summary, detail string) {
	panic(errJSONSyntax{jobs.Errorf(p.pos(), summary, "%s", detail)})
}

// advance moves over one byte, keeping line and column (in code points).
func (p *jparser) advance() {
	c := p.src[p.off]
	p.off++
	switch {
	case c == '\n':
		p.line++
		p.col = 1
	case c < utf8.RuneSelf || utf8.RuneStart(c):
		if c == '\r' && p.off < len(p.src) && p.src[p.off] == '\n' {
			return // CRLF: the '\n' ends the line
		}
		p.col++
	}
}

func (p *jparser) skipSpace() {
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.advance()
		case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '/':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.advance()
			}
		case c == '/' && p.off+1 < len(p.src) && p.src[p.off+1] == '*':
			start := p.pos()
			p.advance()
			p.advance()
			for {
				if p.off+1 >= len(p.src) {
					panic(errJSONSyntax{jobs.Errorf(start, "Unterminated comment", "A /* comment is never closed with */.")})
				}
				if p.src[p.off] == '*' && p.src[p.off+1] == '/' {
					p.advance()
					p.advance()
					break
				}
				p.advance()
			}
		default:
			return
		}
	}
}

func (p *jparser) value() *jnode {
	if p.off >= len(p.src) {
		p.fail("Unexpected end of file", "The JSON text ends in the middle of a value; check for a missing closing brace or bracket.")
	}
	n := &jnode{Pos: p.pos()}
	switch c := p.src[p.off]; {
	case c == '{':
		p.enter()
		p.object(n)
		p.depth--
	case c == '[':
		p.enter()
		p.array(n)
		p.depth--
	case c == '"':
		n.Kind = jString
		n.Str = p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		n.Kind = jNumber
		n.Str = p.number()
	case p.literal("true"):
		n.Kind, n.Bool = jBool, true
	case p.literal("false"):
		n.Kind = jBool
	case p.literal("null"):
		n.Kind = jNull
	default:
		r, _ := utf8.DecodeRune(p.src[p.off:])
		p.fail("Invalid JSON value", fmt.Sprintf("Found %q where a value (object, array, string, number, true, false or null) was expected.", r))
	}
	return n
}

func (p *jparser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail("JSON nested too deeply", fmt.Sprintf("More than %d nested objects or arrays; a job file never needs that many.", maxDepth))
	}
}

func (p *jparser) literal(word string) bool {
	if len(p.src)-p.off < len(word) || string(p.src[p.off:p.off+len(word)]) != word {
		return false
	}
	for range word {
		p.advance()
	}
	return true
}

func (p *jparser) object(n *jnode) {
	n.Kind = jObject
	p.advance() // {
	seen := map[string]bool{}
	for {
		p.skipSpace()
		if p.off < len(p.src) && p.src[p.off] == '}' {
			if len(n.Members) > 0 {
				p.diags = append(p.diags, jobs.Warnf(p.pos(), "Trailing comma", "A comma before '}' is not JSON; OpenPAI would have refused this file. Remove the comma."))
			}
			p.advance()
			return
		}
		if p.off >= len(p.src) || p.src[p.off] != '"' {
			p.fail("Expected a quoted key", "Object keys must be double-quoted strings; check for a missing comma, a stray character or a missing '}'.")
		}
		m := jmember{KeyPos: p.pos()}
		m.Key = p.str()
		if seen[m.Key] {
			p.diags = append(p.diags, jobs.Warnf(m.KeyPos, "Duplicate key", "%q appears more than once in this object; the last value is used (as JSON.parse does). Remove the extra one.", m.Key))
		}
		seen[m.Key] = true
		p.skipSpace()
		if p.off >= len(p.src) || p.src[p.off] != ':' {
			p.fail("Expected ':' after key", fmt.Sprintf("The key %q must be followed by a colon and a value.", m.Key))
		}
		p.advance()
		p.skipSpace()
		m.Val = p.value()
		n.Members = append(n.Members, m)
		p.skipSpace()
		if p.off < len(p.src) && p.src[p.off] == ',' {
			p.advance()
			continue
		}
		if p.off < len(p.src) && p.src[p.off] == '}' {
			p.advance()
			return
		}
		p.fail("Expected ',' or '}'", "Members of an object are separated by commas; check for a missing comma or closing brace.")
	}
}

func (p *jparser) array(n *jnode) {
	n.Kind = jArray
	n.Elems = []*jnode{}
	p.advance() // [
	for {
		p.skipSpace()
		if p.off < len(p.src) && p.src[p.off] == ']' {
			if len(n.Elems) > 0 {
				p.diags = append(p.diags, jobs.Warnf(p.pos(), "Trailing comma", "A comma before ']' is not JSON; OpenPAI would have refused this file. Remove the comma."))
			}
			p.advance()
			return
		}
		n.Elems = append(n.Elems, p.value())
		p.skipSpace()
		if p.off < len(p.src) && p.src[p.off] == ',' {
			p.advance()
			continue
		}
		if p.off < len(p.src) && p.src[p.off] == ']' {
			p.advance()
			return
		}
		p.fail("Expected ',' or ']'", "Elements of an array are separated by commas; check for a missing comma or closing bracket.")
	}
}

// str reads a JSON string and returns its value.
func (p *jparser) str() string {
	p.advance() // opening quote
	var out []byte
	for {
		if p.off >= len(p.src) {
			p.fail("Unterminated string", "A string is never closed with a double quote.")
		}
		c := p.src[p.off]
		switch {
		case c == '"':
			p.advance()
			return string(out)
		case c == '\\':
			out = p.escape(out)
		case c == '\t':
			p.diags = append(p.diags, jobs.Warnf(p.pos(), "Raw TAB in string", "JSON requires \\t inside strings; OpenPAI's JSON.parse would have refused this. The TAB is kept as written."))
			out = append(out, c)
			p.advance()
		case c < 0x20:
			p.fail("Control character in string", "A raw line break or control character may not appear inside a JSON string; write it as an escape such as \\n.")
		default:
			out = append(out, c)
			p.advance()
		}
	}
}

func (p *jparser) escape(out []byte) []byte {
	p.advance() // backslash
	if p.off >= len(p.src) {
		p.fail("Unterminated string", "A string ends in the middle of an escape sequence.")
	}
	c := p.src[p.off]
	simple := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	if r, ok := simple[c]; ok {
		p.advance()
		return append(out, r)
	}
	if c != 'u' {
		p.fail("Invalid escape in string", fmt.Sprintf("\\%c is not a JSON escape; use \\\\ for a literal backslash.", c))
	}
	p.advance()
	r1 := p.hex4()
	if r1 >= 0xD800 && r1 < 0xDC00 && p.lowSurrogateNext() {
		p.advance()
		p.advance()
		return utf8.AppendRune(out, utf16.DecodeRune(r1, p.hex4()))
	}
	if utf16.IsSurrogate(r1) {
		// A lone surrogate: JSON.parse keeps it, and any UTF-8 output of it
		// is U+FFFD (encoding/json decodes it the same way).
		r1 = utf8.RuneError
	}
	return utf8.AppendRune(out, r1)
}

// lowSurrogateNext reports whether the next escape is \uDC00–\uDFFF, the
// second half of a surrogate pair.
func (p *jparser) lowSurrogateNext() bool {
	if len(p.src)-p.off < 6 || p.src[p.off] != '\\' || p.src[p.off+1] != 'u' {
		return false
	}
	v, err := strconv.ParseUint(string(p.src[p.off+2:p.off+6]), 16, 32)
	return err == nil && v >= 0xDC00 && v <= 0xDFFF
}

func (p *jparser) hex4() rune {
	if len(p.src)-p.off < 4 {
		p.fail("Invalid \\u escape", "\\u must be followed by four hexadecimal digits.")
	}
	v, err := strconv.ParseUint(string(p.src[p.off:p.off+4]), 16, 32)
	if err != nil {
		p.fail("Invalid \\u escape", "\\u must be followed by four hexadecimal digits.")
	}
	for i := 0; i < 4; i++ {
		p.advance()
	}
	return rune(v)
}

// number reads a JSON number and returns it exactly as written.
func (p *jparser) number() string {
	start := p.off
	digits := func() int {
		n := 0
		for p.off < len(p.src) && p.src[p.off] >= '0' && p.src[p.off] <= '9' {
			p.advance()
			n++
		}
		return n
	}
	bad := func() {
		p.fail("Invalid number", "Numbers are written like 4, -1, 0.5 or 1e3 (no leading zeros, no '+', no hexadecimal).")
	}
	if p.src[p.off] == '-' {
		p.advance()
	}
	if p.off < len(p.src) && p.src[p.off] == '0' {
		p.advance()
		if p.off < len(p.src) && p.src[p.off] >= '0' && p.src[p.off] <= '9' {
			bad()
		}
	} else if digits() == 0 {
		bad()
	}
	if p.off < len(p.src) && p.src[p.off] == '.' {
		p.advance()
		if digits() == 0 {
			bad()
		}
	}
	if p.off < len(p.src) && (p.src[p.off] == 'e' || p.src[p.off] == 'E') {
		p.advance()
		if p.off < len(p.src) && (p.src[p.off] == '+' || p.src[p.off] == '-') {
			p.advance()
		}
		if digits() == 0 {
			bad()
		}
	}
	return string(p.src[start:p.off])
}
