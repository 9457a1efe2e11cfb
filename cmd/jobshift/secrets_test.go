package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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

// A malformed -secrets file is located, never quoted: the line a
// diagnostic points at holds a secret, and diagnostics go to terminals,
// CI logs and bug reports.
func TestSecretsDiagnosticsQuoteNoSecret(t *testing.T) {
	for name, src := range map[string]string{
		"unterminated quote": "token: \"hunter2-s3cr3t\n",
		"bad mapping":        "token: hunter2-s3cr3t: x\n",
		"not a mapping":      "- hunter2-s3cr3t\n",
		"twice":              "token: hunter2-s3cr3t\ntoken: hunter2-s3cr3t\n",
	} {
		path := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		_, diags := readSecrets(path)
		if !diags.HasErrors() {
			t.Fatalf("%s: no error", name)
		}
		var out bytes.Buffer
		printDiags(&out, diags)
		if strings.Contains(out.String(), "s3cr3t") {
			t.Errorf("%s: the diagnostic quotes the secret:\n%s", name, out.String())
		}
		if !strings.Contains(out.String(), path+":") {
			t.Errorf("%s: the diagnostic does not name the place:\n%s", name, out.String())
		}
	}
}
