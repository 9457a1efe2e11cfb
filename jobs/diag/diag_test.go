package diag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/jobshift/jobshift/jobs"
)

var yamlSrc = []byte("kind: TFJob\nspec:\n  replicas: two\n\tbad: tab\n")

func sources(files map[string][]byte) Sources {
	return func(name string) []byte { return files[name] }
}

func at(file string, line, col int) *hcl.Range {
	return &hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
}

func TestText(t *testing.T) {
	src := sources(map[string][]byte{"job.yaml": yamlSrc})
	for name, tc := range map[string]struct {
		diags hcl.Diagnostics
		want  string
	}{
		"located with source": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Expected an integer",
			Detail: "replicas must be an integer.", Subject: at("job.yaml", 3, 13)}},
			"job.yaml:3:13: error: Expected an integer\n    replicas must be an integer.\n       3:   replicas: two\n                      ^\n"},
		"tab kept as written": {hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Tab", Subject: at("job.yaml", 4, 1)}},
			"job.yaml:4:1: warning: Tab\n       4: \tbad: tab\n          ^\n"},
		"multi-line detail": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Detail: "one\n\ntwo\n", Subject: at("job.yaml", 1, 1)}},
			"job.yaml:1:1: error: S\n    one\n    two\n       1: kind: TFJob\n          ^\n"},
		"no source": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Detail: "D", Subject: at("other.yaml", 2, 5)}},
			"other.yaml:2:5: error: S\n    D\n"},
		"line past the end": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: at("job.yaml", 40, 1)}},
			"job.yaml:40:1: error: S\n"},
		"file only": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read", Subject: &hcl.Range{Filename: "job.yaml"}}},
			"job.yaml: error: Cannot read\n"},
		"command line": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown dialect", Detail: "use leinao"}},
			"error: Unknown dialect\n    use leinao\n"},
		"every diagnostic": {hcl.Diagnostics{
			{Severity: hcl.DiagWarning, Summary: "W", Subject: at("job.yaml", 1, 1)},
			{Severity: hcl.DiagError, Summary: "E", Subject: at("job.yaml", 2, 1)}},
			"job.yaml:1:1: warning: W\n       1: kind: TFJob\n          ^\njob.yaml:2:1: error: E\n       2: spec:\n          ^\n"},
	} {
		var b bytes.Buffer
		if err := Text(&b, tc.diags, src); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, b.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

// HCL diagnostics keep HCL's own ranges (bytes included); a subject
// spanning a block is quoted up to maxSnippet lines.
// TestTextLongLine: a quoted line is cut to 160 characters around the
// column (a minified JSON job is one line of up to 1.5 MiB).
func TestTextLongLine(t *testing.T) {
	a, b := strings.Repeat("a", 300), strings.Repeat("b", 300)
	line := "x: " + a + "BAD" + b // BAD at column 304
	src := sources(map[string][]byte{"job.json": []byte(line + "\n\u00e9" + strings.Repeat("\u00e9", 199) + "\n")})
	for name, tc := range map[string]struct {
		subject *hcl.Range
		want    string
	}{
		// 40 characters before the column are kept, 160 in all
		"middle": {at("job.json", 1, 304),
			"job.json:1:304: error: S\n       1: …" + a[:40] + "BAD" + b[:117] + "…\n" +
				strings.Repeat(" ", 10+41) + "^\n"},
		"start": {at("job.json", 1, 1),
			"job.json:1:1: error: S\n       1: x: " + a[:157] + "…\n          ^\n"},
		"end": {at("job.json", 1, 606),
			"job.json:1:606: error: S\n       1: …" + a[:0] + b[140:] + "\n" + strings.Repeat(" ", 10+160) + "^\n"},
		// characters, not bytes: é is 2 bytes
		"characters": {at("job.json", 2, 200),
			"job.json:2:200: error: S\n       2: …" + strings.Repeat("\u00e9", 160) + "\n" + strings.Repeat(" ", 10+160) + "^\n"},
		// a subject over several lines: no caret, each line from its start
		"two lines": {&hcl.Range{Filename: "job.json", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 2, Column: 3}},
			"job.json:1:1: error: S\n       1: x: " + a[:157] + "…\n"},
	} {
		var out bytes.Buffer
		if err := Text(&out, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Subject: tc.subject}}, src); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, out.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

func TestTextHCL(t *testing.T) {
	src := []byte("nomad {\n  driver = \"java\"\n  a = 1\n  b = 2\n  c = 3\n}\n")
	f, diags := hclsyntax.ParseConfig(src, "site.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	attr := body.Blocks[0].Body.Attributes["driver"]
	block := body.Blocks[0].Range()
	d := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Invalid driver", Subject: attr.Expr.Range().Ptr()},
		{Severity: hcl.DiagWarning, Summary: "Block", Subject: &block},
	}
	var b bytes.Buffer
	if err := Text(&b, d, sources(map[string][]byte{"site.hcl": src})); err != nil {
		t.Fatal(err)
	}
	want := "site.hcl:2:12: error: Invalid driver\n       2:   driver = \"java\"\n                     ^\n" +
		"site.hcl:1:1: warning: Block\n       1: nomad {\n       2:   driver = \"java\"\n       3:   a = 1\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestJSON(t *testing.T) {
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Expected an integer", Detail: "D", Subject: at("job.yaml", 3, 13)},
		{Severity: hcl.DiagWarning, Summary: "W", Subject: at("gone.yaml", 2, 1)},
		{Severity: hcl.DiagError, Summary: "Unknown dialect"},
		{Severity: hcl.DiagError, Summary: "Cannot read", Subject: &hcl.Range{Filename: "gone.yaml"}},
		{Severity: hcl.DiagError, Summary: "Point", Subject: &hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: 2, Column: 3, Byte: 9}}},
	}
	var b bytes.Buffer
	if err := JSON(&b, diags, sources(map[string][]byte{"job.yaml": yamlSrc})); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	pos := func(l, c, by float64) map[string]any { return map[string]any{"line": l, "column": c, "byte": by} }
	want := map[string]any{"valid": false, "error_count": 4.0, "warning_count": 1.0, "diagnostics": []any{
		map[string]any{"severity": "error", "summary": "Expected an integer", "detail": "D",
			// "kind: TFJob\n" is 12 bytes, "spec:\n" 6: line 3 starts at byte 18
			"range": map[string]any{"filename": "job.yaml", "start": pos(3, 13, 30), "end": pos(3, 14, 31)}},
		map[string]any{"severity": "warning", "summary": "W",
			"range": map[string]any{"filename": "gone.yaml", "start": pos(2, 1, 0), "end": pos(2, 2, 0)}},
		map[string]any{"severity": "error", "summary": "Unknown dialect"},
		map[string]any{"severity": "error", "summary": "Cannot read",
			"range": map[string]any{"filename": "gone.yaml", "start": pos(0, 0, 0), "end": pos(0, 0, 0)}},
		map[string]any{"severity": "error", "summary": "Point",
			"range": map[string]any{"filename": "p.hcl", "start": pos(2, 3, 9), "end": pos(2, 3, 9)}},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	var empty bytes.Buffer
	if err := JSON(&empty, nil, nil); err != nil || empty.String() != "{\n  \"valid\": true,\n  \"error_count\": 0,\n  \"warning_count\": 0,\n  \"diagnostics\": []\n}\n" {
		t.Errorf("no diagnostics: %q, %v", empty.String(), err)
	}
}

var errKind = errors.New("job cannot run here")

func TestError(t *testing.T) {
	diags := hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "A", Detail: "first", Subject: at("j.yaml", 1, 2)},
		{Severity: hcl.DiagError, Summary: "B", Subject: at("j.yaml", 5, 1)},
	}
	err := fmt.Errorf("wrapped: %w", Errors(errKind, diags))
	if !errors.Is(err, errKind) {
		t.Error("errors.Is does not find the kind")
	}
	got, ok := Of(err)
	if !ok || len(got) != 2 {
		t.Errorf("Of = %v, %v; want both diagnostics", got, ok)
	}
	if want := "wrapped: j.yaml:1:2: A: first; j.yaml:5:1: B"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if Errors(errKind, hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "W"}}) != nil {
		t.Error("warnings alone are not an error")
	}
	// the outer error's diagnostics, also when its kind wraps an inner one
	outer := &Error{Kind: errors.Join(errKind, &Error{Diags: diags[:1]}), Diags: diags}
	if got, _ := Of(outer); len(got) != 2 {
		t.Errorf("Of(outer) = %v, want both diagnostics", got)
	}
	if _, ok := Of(errKind); ok {
		t.Error("a plain error carries no diagnostics")
	}
}

// One -lossy wording for every reader: an error naming the flag, or a
// warning saying it was used.
func TestCollectorLossy(t *testing.T) {
	var strict, lossy Collector
	lossy.Lossy = true
	p := jobs.Pos{File: "j.yaml", Line: 3, Col: 5}
	strict.Lossyf(p, "Sidecar dropped", "The container %q would run beside the main one.", "log")
	lossy.Lossyf(p, "Sidecar dropped", "The container %q would run beside the main one.", "log")
	var b bytes.Buffer
	Text(&b, append(strict.Diags, lossy.Diags...), nil)
	want := "j.yaml:3:5: error: Sidecar dropped\n    The container \"log\" would run beside the main one. Re-run with -lossy to convert the job without it.\n" +
		"j.yaml:3:5: warning: Sidecar dropped\n    The container \"log\" would run beside the main one. (accepted because of -lossy)\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
