package contract

import (
	"strconv"
)

// IsShellName reports whether s can be a sh variable name (and so be
// assigned and exported by the shell itself).
func IsShellName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isEnvparseName reports whether go-envparse (Nomad's env template parser)
// accepts s as a key: [A-Za-z_] then [A-Za-z0-9/_.].
func isEnvparseName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i > 0 {
			ok = ok || c >= '0' && c <= '9' || c == '.' || c == '/'
		}
		if !ok {
			return false
		}
	}
	return true
}

// tmplString is s as a Go template string literal: inside an action, so
// the template delimiters in s are plain text.
func tmplString(s string) string { return strconv.Quote(s) }
