package pai

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

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// caseOptions is the optional testdata/<case>.opts.json beside an input.
type caseOptions struct {
	Vars    map[string]string `json:"vars"`
	Secrets map[string]any    `json:"secrets"`
	Dialect string            `json:"dialect"`
	Lossy   bool              `json:"lossy"`
}

// formatDiags renders diagnostics one per line as
// file:line:col: severity: summary: detail.
func formatDiags(diags hcl.Diagnostics) string {
	var b strings.Builder
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		where := ""
		if d.Subject != nil {
			where = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(&b, "%s%s: %s: %s\n", where, sev, d.Summary, d.Detail)
	}
	return b.String()
}

// goldenText is what a .golden file holds: the job model as indented JSON
// (null when the reader refused the file), then the diagnostics. Secrets
// are not serialised by the model, so their names are listed separately.
func goldenText(job *jobs.Job, diags hcl.Diagnostics) string {
	out, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		out = []byte("marshal error: " + err.Error())
	}
	var b strings.Builder
	b.Write(out)
	b.WriteString("\n")
	if job != nil {
		for _, r := range job.Roles {
			if r.ImageAuth != nil && r.ImageAuth.Password != "" {
				fmt.Fprintf(&b, "-- role %s image password: %s\n", r.Name, r.ImageAuth.Password)
			}
		}
		if len(job.Secrets) > 0 {
			fmt.Fprintf(&b, "-- secrets: %d value(s) held in Job.Secrets\n", len(job.Secrets))
		}
	}
	b.WriteString("-- diagnostics:\n")
	b.WriteString(formatDiags(diags))
	return b.String()
}

func readCase(t *testing.T, input string) (*jobs.Job, hcl.Diagnostics) {
	t.Helper()
	src, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	opts := jobs.ReadOptions{Path: filepath.ToSlash(input)}
	base := strings.TrimSuffix(input, filepath.Ext(input))
	if raw, err := os.ReadFile(base + ".opts.json"); err == nil {
		var co caseOptions
		if err := json.Unmarshal(raw, &co); err != nil {
			t.Fatalf("%s.opts.json: %v", base, err)
		}
		opts.Vars, opts.Secrets, opts.Dialect, opts.Lossy = co.Vars, co.Secrets, co.Dialect, co.Lossy
	}
	return Read(src, opts)
}

func TestGolden(t *testing.T) {
	var inputs []string
	for _, pat := range []string{"testdata/*.json", "testdata/*.yaml"} {
		m, _ := filepath.Glob(pat)
		for _, f := range m {
			if !strings.HasSuffix(f, ".opts.json") {
				inputs = append(inputs, f)
			}
		}
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs in testdata/")
	}
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))
		t.Run(name, func(t *testing.T) {
			job, diags := readCase(t, input)
			if job == nil && !diags.HasErrors() {
				t.Errorf("no job and no error")
			}
			got := goldenText(job, diags)
			golden := strings.TrimSuffix(input, filepath.Ext(input)) + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestDump prints what Read makes of $PAI_DUMP (a debugging aid; skipped
// unless the variable is set).
func TestDump(t *testing.T) {
	path := os.Getenv("PAI_DUMP")
	if path == "" {
		t.Skip("set PAI_DUMP=file to print what Read makes of it")
	}
	job, diags := readCase(t, path)
	if job == nil && !diags.HasErrors() {
		t.Error("no job and no error")
	}
	t.Log("\n" + goldenText(job, diags))
}
