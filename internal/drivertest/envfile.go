package drivertest

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// ReadEnvFile parses a rendered Nomad env template: NAME="json string" lines
// (what the contract template writes; go-envparse reads them the same way)
// and NAME=value lines. A line without '=' is a test error.
func ReadEnvFile(t *testing.T, r io.ReadCloser) map[string]string {
	t.Helper()
	defer r.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("env line without '=': %q", line)
			continue
		}
		if strings.HasPrefix(v, `"`) {
			var s string
			if err := json.Unmarshal([]byte(v), &s); err != nil {
				t.Errorf("%s: %v", k, err)
			}
			v = s
		}
		out[k] = v
	}
	return out
}
