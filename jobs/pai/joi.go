package pai

import (
	"math"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs/diag"
)

// Typed access to v1 JSON values with the conversions PAI's Joi schema
// applied (pai@v0.14.0:src/rest-server/src/config/job.js, Joi's default
// `convert: true`): a number field also accepts a string holding a decimal
// number ("4", " 8 "), `.integer()` means a safe integer (4.0 is fine, 4.5
// is not), and a string field accepts only strings (Joi does not turn 4 into
// "4"). Everything else is a located error naming the field.

const maxSafeInt = 1<<53 - 1

// diagSink is the readers' diagnostics collector with the Joi conversions.
type diagSink struct {
	diag.Collector
}

// intValue converts n to an integer as Joi.number().integer() would. ok is
// false (with an error recorded) when n is not an integer.
func (d *diagSink) intValue(n *jnode, field string) (v int64, ok bool) {
	text := n.Str
	switch n.Kind {
	case jNumber:
	case jString:
		text = strings.TrimFunc(text, isJSSpace)
		if !isDecimalNumber(text) {
			d.Errorf(n.Pos, "Not a number", "%s must be an integer; %q is not a number.", field, n.Str)
			return 0, false
		}
	default:
		d.Errorf(n.Pos, "Not a number", "%s must be an integer, not %s.", field, n.Kind)
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > maxSafeInt {
		d.Errorf(n.Pos, "Not an integer", "%s must be a whole number (at most 2^53-1 in size), not %s.", field, text)
		return 0, false
	}
	return int64(f), true
}

// isDecimalNumber reports whether s is a decimal number JavaScript's Number()
// would read the same way parseFloat does (no hex, no Infinity, no junk).
func isDecimalNumber(s string) bool {
	if s == "" {
		return false
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits, dot, exp := 0, false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot && !exp:
			dot = true
		case (c == 'e' || c == 'E') && digits > 0 && !exp:
			exp = true
			digits = 0
			if i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') {
				i++
			}
		default:
			return false
		}
	}
	return digits > 0
}

// stringValue checks that n is a string (Joi.string()); empty strings are
// refused unless allowEmpty (Joi's .allow with an empty string).
func (d *diagSink) stringValue(n *jnode, field string, allowEmpty bool) (string, bool) {
	if n.Kind != jString {
		d.Errorf(n.Pos, "Not a string", "%s must be a string, not %s; put the value in double quotes.", field, n.Kind)
		return "", false
	}
	if n.Str == "" && !allowEmpty {
		d.Errorf(n.Pos, "Empty value", "%s must not be empty.", field)
		return "", false
	}
	return n.Str, true
}

// isJSSpace is JavaScript's WhiteSpace + LineTerminator set (what trim(),
// parseFloat and the regexp \s skip).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }
