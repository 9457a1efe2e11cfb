package load

import (
	"strconv"

	"github.com/jobshift/jobshift/jobs"
)

// jsonTopKeys returns the keys of the outermost JSON object (or YAML flow
// mapping), scanning leniently: // and /* */ comments are skipped (real PAI
// v1 files have them), bare words are accepted as keys and values, and
// nothing is validated; the reader does that with positions.
func jsonTopKeys(src []byte, path string) []topKey {
	var keys []topKey
	line, col := 1, 1
	depth := 0
	var pending *topKey // a depth-1 string that may turn out to be a key
	expectValue := false
	advance := func(n int) {
		for k := 0; k < n && k < len(src); k++ {
			if src[k] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		src = src[min(n, len(src)):]
	}
	for len(src) > 0 {
		c := src[0]
		switch {
		case c == '/' && len(src) > 1 && src[1] == '/':
			n := 0
			for n < len(src) && src[n] != '\n' {
				n++
			}
			advance(n)
		case c == '/' && len(src) > 1 && src[1] == '*':
			n := 2
			for n+1 < len(src) && !(src[n] == '*' && src[n+1] == '/') {
				n++
			}
			advance(n + 2)
		case c == '"':
			n := 1
			for n < len(src) && src[n] != '"' && src[n] != '\n' {
				if src[n] == '\\' {
					n++
				}
				n++
			}
			raw := string(src[:min(n+1, len(src))])
			s, err := strconv.Unquote(raw)
			if err != nil {
				s = raw
			}
			if depth == 1 {
				if expectValue && len(keys) > 0 {
					keys[len(keys)-1].value = s
					expectValue = false
				} else {
					pending = &topKey{name: s, pos: jobs.Pos{File: path, Line: line, Col: col}}
				}
			}
			advance(n + 1)
		case c == ':':
			if depth == 1 && pending != nil {
				keys = append(keys, *pending)
				expectValue = true
			}
			pending = nil
			advance(1)
		case c == '{' || c == '[':
			depth++
			pending, expectValue = nil, false
			advance(1)
		case c == '}' || c == ']':
			depth--
			pending, expectValue = nil, false
			if depth <= 0 {
				return keys
			}
			advance(1)
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			advance(1)
		case isWordByte(c):
			// A bare word: a YAML flow mapping key or plain value
			// ({kind: TFJob}), or a JSON literal (true, 12).
			n := 0
			for n < len(src) && isWordByte(src[n]) {
				n++
			}
			if depth == 1 {
				w := string(src[:n])
				if expectValue && len(keys) > 0 {
					keys[len(keys)-1].value = w
					expectValue = false
				} else {
					pending = &topKey{name: w, pos: jobs.Pos{File: path, Line: line, Col: col}}
				}
			}
			advance(n)
		default:
			if c == ',' {
				pending, expectValue = nil, false
			}
			advance(1)
		}
	}
	return keys
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}
