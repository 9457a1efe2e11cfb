package volcano

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestGolden reads every testdata job and compares the job model (JSON,
// as explain -format json prints it), the platform files' contents and
// the diagnostics with testdata/<name>.golden, reviewed against the
// sources named in this package (go test -update rewrites them).
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: filepath.Base(f)})
			var b strings.Builder
			for _, d := range diags {
				fmt.Fprintf(&b, "%s:%d:%d: %s\n", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
			}
			if job != nil {
				for _, r := range job.Roles {
					for _, fl := range r.Files {
						fmt.Fprintf(&b, "file %s %s %o %q\n", r.Name, fl.Path, fl.Mode, fl.Content)
					}
				}
				js, err := json.MarshalIndent(job, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				b.Write(js)
				b.WriteByte('\n')
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if d := cmp.Diff(string(want), b.String()); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
}
