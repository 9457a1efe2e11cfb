package jobs

import (
	"bytes"
	"github.com/hashicorp/hcl/v2"
	"regexp"
	"unicode/utf8"
)

// yaml.v3 reports some errors without a line ("invalid leading UTF-8
// octet", "unknown anchor 'x' referenced"); they used to be reported at
// 1:1. YAMLErrorPos finds where in src they are: the first byte that is not
// UTF-8, or the first alias *x of the unknown anchor. ok is false for other
// errors.
func YAMLErrorPos(src []byte, msg string) (line, col int, ok bool) {
	if m := unknownAnchorRe.FindStringSubmatch(msg); m != nil {
		re := regexp.MustCompile(`\*` + regexp.QuoteMeta(m[1]) + `([\s,\]}]|$)`)
		if loc := re.FindIndex(src); loc != nil {
			line, col = LineCol(src, loc[0])
			return line, col, true
		}
		return 0, 0, false
	}
	if bytes.Contains([]byte(msg), []byte("UTF-8")) || bytes.Contains([]byte(msg), []byte("utf-8")) {
		if off := firstInvalidUTF8(src); off >= 0 {
			line, col = LineCol(src, off)
			return line, col, true
		}
	}
	return 0, 0, false
}

var unknownAnchorRe = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

func firstInvalidUTF8(src []byte) int {
	for off := 0; off < len(src); {
		r, n := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && n <= 1 {
			return off
		}
		off += n
	}
	return -1
}

// LineCol is the 1-based line and column (in bytes) of offset off in src.
func LineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(src[:off], '\n')
}

// BlockComment finds the first /* outside a double-quoted string in src:
// its offset and whether a */ closes it. A JSON-looking file with such a
// comment fails to parse as YAML (OpenPAI's js-yaml and Kubernetes read
// these formats as YAML, which has no /* */ comments); saying so at the
// comment beats "Invalid YAML" at 1:1.
func BlockComment(src []byte) (off int, closed, found bool) {
	inStr := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case c == '\n':
			inStr = false
		case !inStr && c == '/' && i+1 < len(src) && src[i+1] == '*':
			return i, bytes.Contains(src[i+2:], []byte("*/")), true
		}
	}
	return 0, false, false
}

// BlockCommentError is the diagnostic for a /* comment in a JSON-looking
// file read as YAML, or nil when src is not one or has none.
func BlockCommentError(src []byte, file string) *hcl.Diagnostic {
	// only JSON-looking files: in YAML text /* is usually a shell glob
	if !bytes.HasPrefix(bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))), []byte("{")) {
		return nil
	}
	off, closed, found := BlockComment(src)
	if !found {
		return nil
	}
	line, col := LineCol(src, off)
	what := "A /* */ comment"
	if !closed {
		what = "An unterminated /* comment (never closed with */)"
	}
	return Errorf(Pos{File: file, Line: line, Col: col}, "Comment YAML cannot read",
		"%s: this file is read as YAML, as OpenPAI and Kubernetes read it, and YAML has no /* */ comments. Remove it, or use # comments.", what)
}
