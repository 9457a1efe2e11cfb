package pai

import (
	"github.com/jobshift/jobshift/internal/testcorpus"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// corpusInvalid are the files the corpus README calls invalid (or that
// OpenPAI itself would have refused); they must yield errors.
var corpusInvalid = map[string]string{
	"pai-v2/microsoft-pai__docs-pai-job-protocol.yaml":                                "first document is a schema sketch, not YAML",
	"pai-v2/microsoft-pai__contrib-api-stress-test-roles-locust-config-files-job.yml": "mustache {{...}} placeholders",
	"pai-v2/microsoft-openpai-runtime__test-git_repo_test_job.yaml":                   "undeclared prerequisites",
	"pai-v2/microsoft-pai__marketplace-job-pytorch_mnist.yaml":                        "pre-standard protocol_version: v2",
}

// TestCorpus reads every real PAI job file: each yields a job or located
// diagnostics (never a panic), and the invalid ones yield errors.
func TestCorpus(t *testing.T) {
	root := testcorpus.Dir(t)
	for _, folder := range []string{"pai-v1", "pai-v2"} {
		files, _ := filepath.Glob(filepath.Join(root, folder, "*"))
		sort.Strings(files)
		var ok, withWarnings, failed int
		for _, f := range files {
			rel := folder + "/" + filepath.Base(f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			job, diags := Read(src, jobs.ReadOptions{Path: rel})
			for _, d := range diags {
				if d.Subject == nil || d.Subject.Start.Line == 0 {
					t.Errorf("%s: diagnostic without a position: %s: %s", rel, d.Summary, d.Detail)
				}
			}
			switch {
			case diags.HasErrors():
				failed++
				if job != nil {
					t.Errorf("%s: a job came back with errors", rel)
				}
				if _, expected := corpusInvalid[rel]; !expected {
					t.Errorf("%s: unexpected errors:\n%s", rel, formatDiags(diags))
				}
			case job == nil:
				t.Errorf("%s: no job and no error", rel)
			default:
				if why, expected := corpusInvalid[rel]; expected {
					t.Errorf("%s: read without errors, but it is invalid (%s)", rel, why)
				}
				if len(job.Roles) == 0 {
					t.Errorf("%s: job without roles", rel)
				}
				if len(diags) > 0 {
					withWarnings++
				} else {
					ok++
				}
			}
			if testing.Verbose() {
				t.Logf("%s:\n%s", rel, formatDiags(diags))
			}
		}
		t.Logf("%s: %d files: %d converted cleanly, %d converted with warnings, %d failed", folder, len(files), ok, withWarnings, failed)
	}
}

// TestLeinaoDistributed is the acceptance check on the LeinaoPAI
// ps/worker example.
func TestLeinaoDistributed(t *testing.T) {
	f := filepath.Join(testcorpus.Dir(t), "pai-v1", "feng257-LeinaoPAI__example-tensorflow-distributed-distributed_job.json")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	job, diags := Read(src, jobs.ReadOptions{Path: f})
	if diags.HasErrors() || job == nil {
		t.Fatalf("errors:\n%s", formatDiags(diags))
	}
	type roleFacts struct {
		Name       string
		Instances  int
		GPU        int
		PortLabels string
	}
	var got []roleFacts
	for _, r := range job.Roles {
		labels := ""
		for _, p := range r.Ports {
			labels += p.Label + ":" + string(rune('0'+p.Count)) + " "
		}
		got = append(got, roleFacts{r.Name, r.Instances, r.Resources.GPU, labels})
	}
	want := []roleFacts{{"ps", 2, 0, "leinao:3 "}, {"worker", 2, 2, "leinao:3 "}}
	if len(got) != len(want) {
		t.Fatalf("roles = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("role %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if job.Source.Dialect != DialectLeinao || len(job.Contracts) != 1 || job.Contracts[0] != "leinao" {
		t.Errorf("dialect %q contracts %v, want leinao/[leinao]", job.Source.Dialect, job.Contracts)
	}
	if !hasWarning(diags, "LeinaoPAI dialect detected") || !hasWarning(diags, "killAllOnCompletedTaskNumber read with its v0.4–v0.6 meaning") {
		t.Errorf("missing dialect or killAll warning:\n%s", formatDiags(diags))
	}
}

func hasWarning(diags hcl.Diagnostics, summary string) bool {
	for _, d := range diags {
		if d.Severity == hcl.DiagWarning && d.Summary == summary {
			return true
		}
	}
	return false
}
