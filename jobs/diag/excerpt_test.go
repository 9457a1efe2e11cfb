package diag

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
)

func textOf(t *testing.T, diags hcl.Diagnostics, src Sources) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, diags, src); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A PAI v2 job as users write it: secrets under `secrets:` and in a
// secrets document after the job.
var secretJob = []byte(`protocolVersion: 2
name: auth
type: job
secrets:
  api_token: s3cr3t-value
  nested:
    - hunter2
taskRoles:
  worker:
    commands:
      - echo <% $secrets.api_token %>
---
docker_password: pa55word
`)

// An error under secrets: quotes its line with the value masked (the
// caret still points where it did); names and the job's other lines show.
func TestExcerptMasksSecrets(t *testing.T) {
	src := sources(map[string][]byte{"job.yaml": secretJob})
	for line, want := range map[int]string{
		5:  "       5:   api_token: ************\n                       ^\n",
		7:  "       7:     - *******\n                       ^\n",
		13: "      13: docker_password: ********\n                             ^\n",
		11: "      11:       - echo <% $secrets.api_token %>\n",
	} {
		col := map[int]int{5: 14, 7: 14, 13: 20, 11: 9}[line]
		got := textOf(t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: at("job.yaml", line, col)}}, src)
		got = strings.TrimPrefix(got, strings.SplitAfter(got, "\n")[0])
		if line == 11 {
			got = strings.SplitAfter(got, "\n")[0]
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("line %d (-want +got):\n%s", line, d)
		}
	}
	for _, secret := range []string{"s3cr3t", "hunter2", "pa55word"} {
		for line := 1; line <= 13; line++ {
			got := textOf(t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: at("job.yaml", line, 1)}}, src)
			if strings.Contains(got, secret) {
				t.Errorf("line %d: excerpt shows secret %q:\n%s", line, secret, got)
			}
		}
	}
}

// A file given as -secrets FILE is masked whole.
func TestExcerptMasksSecretFile(t *testing.T) {
	MarkSecretFile("secrets.yaml")
	src := sources(map[string][]byte{"secrets.yaml": []byte("token: abc\nlist: [x, y]\n")})
	got := textOf(t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad", Subject: at("secrets.yaml", 2, 7)}}, src)
	if want := "secrets.yaml:2:7: error: Bad\n       2: list: *** **\n                ^\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Control characters of the file (an escape sequence that would retitle
// or clear the terminal, a NUL of a binary file, a C1 control) and bytes
// that are not UTF-8 are written as escapes, in excerpts and in texts
// quoted into a summary or detail; the caret follows the escaped text.
func TestExcerptEscapesControls(t *testing.T) {
	src := sources(map[string][]byte{"job.yaml": []byte("name: \x1b]0;owned\x07x\x00\xff\u0085y: 1\n")})
	got := textOf(t, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad \x1b[2J", Detail: "role \x1b[2J",
		Subject: at("job.yaml", 1, 16)}}, src)
	want := "job.yaml:1:16: error: Bad \\x1b[2J\n    role \\x1b[2J\n" +
		`       1: name: \x1b]0;owned\x07x\x00\xff\u0085y: 1` + "\n" +
		"                            ^\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, c := range got {
		if c != '\n' && c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
			t.Errorf("raw control %U in output", c)
		}
	}
}

// A writer given no sources (a driver's warnings) quotes the file from
// disk: every diagnostic has its excerpt.
func TestExcerptWithoutSources(t *testing.T) {
	f := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(f, yamlSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	got := textOf(t, hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "W", Subject: at(f, 3, 13)}}, nil)
	if !strings.Contains(got, "   3:   replicas: two\n") {
		t.Errorf("no excerpt:\n%s", got)
	}
}
