package kubeflow

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the reader's output (review the diff!)")

// formatDiags renders diagnostics as `file:line:col: severity: summary: detail`.
func formatDiags(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		loc := "<no position>"
		if d.Subject != nil {
			loc = fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(&b, "%s: %s: %s: %s\n", loc, sev, d.Summary, d.Detail)
	}
	return b.String()
}

// render is the golden text: the job model as indented JSON, then the
// diagnostics.
func render(job *jobs.Job, diags hcl.Diagnostics) string {
	js, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		js = []byte("marshal error: " + err.Error())
	}
	return string(js) + "\n--- diagnostics\n" + formatDiags(diags)
}

// TestGolden reads every testdata/<case>.yaml and compares with
// <case>.golden. Cases whose name starts with "lossy_" are read with -lossy.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: filepath.Base(in), Lossy: strings.HasPrefix(name, "lossy_")})
			got := render(job, diags)
			golden := strings.TrimSuffix(in, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it, then review it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
			}
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Start.Line < 1 {
					t.Errorf("diagnostic without position: %s: %s", d.Summary, d.Detail)
				}
			}
		})
	}
}
