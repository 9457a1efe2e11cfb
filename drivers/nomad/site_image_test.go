package nomad

import (
	"context"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestSiteImageRuleAppliedOnce: translate.Build rewrites images by the site
// rules; the driver must use the result as it is (a mirror rule applied
// twice gave mirror.example/mirror.example/...).
func TestSiteImageRuleAppliedOnce(t *testing.T) {
	site, diags := siteconfig.ParseConfig([]byte(`image "*" { replace = "mirror.example/*" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	job := &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatPAIv2}, Contracts: []string{jobs.ContractPAI},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{{Name: "worker", Instances: 1, Image: "openpai/tf:1.15",
			Command: jobs.Command{Kind: jobs.CommandBashScript, Script: "true"},
			Ports:   []jobs.Port{{Label: "ssh", Count: 1}, {Label: "http", Count: 1}}}}}
	p, diags := translate.Build(job, site, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	d, err := New(drivers.Config{Site: site}, false)
	if err != nil {
		t.Fatal(err)
	}
	art, err := d.Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	out := string(art.Files[0].Data)
	if !strings.Contains(out, `"mirror.example/openpai/tf:1.15"`) || strings.Contains(out, "mirror.example/mirror.example") {
		t.Errorf("image not rewritten exactly once:\n%s", out)
	}
}
