package plugin

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// normaliseNumbers turns json.Number into the types the YAML and JSON readers
// produce: int for integral literals, float64 otherwise. (A float written as
// 3.0 in the source arrives as int 3; every consumer renders both as "3".)
func normaliseNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normaliseNumbers(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = normaliseNumbers(e)
		}
		return t
	case json.Number:
		s := t.String()
		if !strings.ContainsAny(s, ".eE") {
			if n, err := t.Int64(); err == nil && int64(int(n)) == n {
				return int(n)
			}
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return s
	default:
		return v
	}
}
