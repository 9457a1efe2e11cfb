package jobs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MarshalJSON writes a secret variable without its value (explain -json,
// the IR goldens): only its name and where it came from.
func (e EnvVar) MarshalJSON() ([]byte, error) {
	type plain EnvVar
	if e.Secret {
		e.Value = ""
	}
	return json.Marshal(plain(e))
}

// SecretEnv reports whether r or one of its init steps has a variable whose
// value is secret: drivers that cannot deliver such values out of their
// artifacts refuse the role.
func (r *Role) SecretEnv() (EnvVar, bool) {
	for _, e := range r.Env {
		if e.Secret {
			return e, true
		}
	}
	for _, st := range r.Init {
		for _, e := range st.Env {
			if e.Secret {
				return e, true
			}
		}
	}
	return EnvVar{}, false
}

// secretStep is one step of a PAI v2 secret reference path: `.name`, `.N`
// or `[N]`.
var secretStep = regexp.MustCompile(`\.([A-Za-z0-9_-]+)|\[([0-9]+)\]`)

// LookupSecret walks path (".a[0].b", or ".a.0.b": the PAI v2 reader
// rewrites [N] to .N as OpenPAI's renderer did) through the job's secrets
// tree. A leaf string is its value, an object or list its JSON text; a
// missing step resolves nothing. Every target fills references with it, so
// a reference means the same on each.
func LookupSecret(root map[string]any, path string) (string, bool) {
	var cur any = root
	for _, seg := range secretStep.FindAllStringSubmatch(path, -1) {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg[1]]
			if !ok || seg[1] == "" {
				return "", false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(seg[1] + seg[2])
			if err != nil || i < 0 || i >= len(c) {
				return "", false
			}
			cur = c[i]
		default:
			return "", false
		}
	}
	switch v := cur.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case map[string]any, []any:
		b, err := json.Marshal(v)
		return string(b), err == nil
	default:
		return fmt.Sprint(v), true
	}
}

// ObjectKeyError says what makes key no ConfigMap or Secret key ("" when
// it is one): letters, digits, '-', '_' and '.', at most 253 bytes, not
// "." nor starting with ".." (k8s.io/apimachinery pkg/util/validation/
// validation.go IsConfigMapKey, v0.29.0). A key is a volume's file name.
func ObjectKeyError(key string) string {
	switch {
	case key == "" || len(key) > 253:
		return "must be 1 to 253 bytes long"
	case strings.Trim(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "":
		return "may hold only letters, digits, '-', '_' and '.'"
	case key == "." || strings.HasPrefix(key, ".."):
		return "must not be '.' nor start with '..'"
	}
	return ""
}
