package pai

import (
	"github.com/jobshift/jobshift/internal/testcorpus"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// seed adds every testdata input and corpus file with one of exts.
func seed(f *testing.F, exts ...string) {
	var files []string
	for _, ext := range exts {
		m, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
		files = append(files, m...)
		if dir := testcorpus.Path(); dir != "" {
			for _, sub := range []string{"pai-v1", "pai-v2"} {
				m, _ := filepath.Glob(filepath.Join(dir, sub, "*"+ext))
				files = append(files, m...)
			}
		}
	}
	for _, name := range files {
		if src, err := os.ReadFile(name); err == nil {
			f.Add(src)
		}
	}
}

// checkResult is the readers' contract: a job or errors, every diagnostic
// located, and a job that is complete enough for the translator.
func checkResult(t *testing.T, job *jobs.Job, diags hcl.Diagnostics) {
	if job == nil && !diags.HasErrors() {
		t.Fatal("no job and no error")
	}
	if job != nil && diags.HasErrors() {
		t.Fatal("a job together with errors")
	}
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Start.Line < 1 || d.Subject.Start.Column < 1 {
			t.Fatalf("diagnostic without a position: %s: %s", d.Summary, d.Detail)
		}
		if d.Summary == "" || d.Detail == "" {
			t.Fatalf("diagnostic without summary or detail: %q %q", d.Summary, d.Detail)
		}
	}
	if job == nil {
		return
	}
	if len(job.Roles) == 0 {
		t.Fatal("job without roles")
	}
	for _, r := range job.Roles {
		if r.Name == "" || r.Command.Kind == "" || r.Instances < 0 || r.Pos.IsZero() {
			t.Fatalf("incomplete role %+v", r)
		}
	}
}

func FuzzReadV1(f *testing.F) {
	seed(f, ".json")
	f.Fuzz(func(t *testing.T, src []byte) {
		job, diags := ReadV1(src, jobs.ReadOptions{Path: "fuzz.json"})
		checkResult(t, job, diags)
	})
}

func FuzzReadV2(f *testing.F) {
	seed(f, ".yaml", ".yml")
	f.Fuzz(func(t *testing.T, src []byte) {
		job, diags := ReadV2(src, jobs.ReadOptions{Path: "fuzz.yaml", Vars: map[string]string{}})
		checkResult(t, job, diags)
	})
}

// FuzzRender checks the renderer never panics and that text without "<%"
// comes back unchanged apart from the final trim.
func FuzzRender(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("a <% $parameters.x %> <%# s %>b<%/ s %> <%={{ }}=%>{{ y }}")
	f.Fuzz(func(t *testing.T, tpl string) {
		out, err := render(tpl, map[string]any{"$parameters": map[string]any{"x": "v"}})
		if err == nil && !containsOpen(tpl) && out != jsTrim(tpl) {
			t.Fatalf("text changed: %q → %q", tpl, out)
		}
	})
}

func containsOpen(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '<' && s[i+1] == '%' {
			return true
		}
	}
	return false
}
