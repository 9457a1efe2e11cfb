package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A -secrets file goes through the readers' YAML layer: every problem
// located, values typed as in a secrets document of the job file.
func TestSecretsValue(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&bomb, "a%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	cases := map[string]struct{ src, want string }{
		"mapping":       {"user: alice\nport: 8080\nnested: {k: v}\n", "map[nested:map[k:v] port:8080 user:alice]"},
		"JSON":          {`{"user": "alice"}`, "map[user:alice]"},
		"empty":         {"# nothing\n", "map[]"},
		"first doc":     {"a: 1\n---\nb: 2\n", "map[a:1]"},
		"not a mapping": {"- alice\n", "s.yaml:1:1 Invalid secrets file: The file holds no mapping. A secrets file is a YAML or JSON mapping of names to values."},
		"duplicates": {"user: a\npass: b\nuser: c\npass: d\n", "s.yaml:3:1 Invalid secrets file: The secret \"user\" is given twice. A secrets file is a YAML or JSON mapping of names to values.\n" +
			"s.yaml:4:1 Invalid secrets file: The secret \"pass\" is given twice. A secrets file is a YAML or JSON mapping of names to values."},
		"alias bomb": {bomb.String(), "s.yaml:1:1 Invalid secrets file: The secrets expand to more than 100000 YAML nodes (through anchors and aliases); write them out plainly."},
		"syntax":     {"a: 1\nb: c: d\n", "s.yaml:2:1 Invalid secrets file: mapping values are not allowed in this context. A secrets file is a YAML or JSON mapping of names to values."},
	}
	for name, tc := range cases {
		m, diags := secretsValue([]byte(tc.src), "s.yaml")
		got := fmt.Sprint(m)
		if len(diags) > 0 {
			var lines []string
			for _, d := range diags {
				lines = append(lines, fmt.Sprintf("%s:%d:%d %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
			}
			got = strings.Join(lines, "\n")
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}
