package nomad_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestCorpusValidates: every corpus file that converts (reads without
// errors and renders) is accepted by the agent: the HCL parses
// (/v1/jobs/parse) and the job validates (/v1/validate/job). Files that do
// not convert are counted and logged, not failed: the readers and the
// renderer report why with diagnostics, tested elsewhere.
func TestCorpusValidates(t *testing.T) {
	corpus := filepath.Join(agent.Repo(), "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no corpus at " + corpus)
	}
	c := agent.Client(t)
	cfg := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 1000}}
	var files []string
	for _, dir := range []string{"pai-v1", "pai-v2", "tfjob", "pytorchjob", "mpijob", "xgboostjob", "paddlejob", "jaxjob", "mxjob"} {
		m, _ := filepath.Glob(filepath.Join(corpus, dir, "*"))
		files = append(files, m...)
	}
	converted, skipped := 0, 0
	for _, f := range files {
		job, diags := load.Load(f, jobs.ReadOptions{Path: f, Lossy: true})
		if job == nil || diags.HasErrors() {
			skipped++
			continue
		}
		p, diags := translate.Build(job, cfg, nil, "alice")
		if p == nil || diags.HasErrors() {
			skipped++
			continue
		}
		d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: cfg})
		art, err := d.Render(context.Background(), p)
		if _, refused := diag.Of(err); refused {
			t.Logf("%s: does not convert: %v", filepath.Base(f), err)
			skipped++
			continue
		} else if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		converted++
		parsed, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: string(art.Files[0].Data)})
		if err != nil {
			t.Errorf("%s: nomad cannot parse the HCL: %v", filepath.Base(f), err)
			continue
		}
		resp, _, err := c.Jobs().Validate(parsed, nil)
		if err != nil || resp.Error != "" || len(resp.ValidationErrors) > 0 {
			t.Errorf("%s: nomad job validate: %v %s %v", filepath.Base(f), err, resp.Error, resp.ValidationErrors)
		}
	}
	t.Logf("%d corpus files converted and validated, %d do not convert", converted, skipped)
	if converted == 0 {
		t.Error("no corpus file converted")
	}
}

// TestLeinaoCorpusOnRawExec: a LeinaoPAI job from the corpus on raw_exec
// runs in the host's network: the HCL reserves 10001-10003 as static ports
// of every group and keeps the allocations on distinct hosts, and Nomad
// accepts it.
func TestLeinaoCorpusOnRawExec(t *testing.T) {
	f := filepath.Join(agent.Repo(), "..", "shared", "corpus", "pai-v1", "feng257-LeinaoPAI__example-tensorflow-distributed-distributed_job.json")
	if _, err := os.Stat(f); err != nil {
		t.Skip("no corpus")
	}
	p := loadPlan(t, f, site())
	d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	art, err := d.Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	src := string(art.Files[0].Data)
	for _, want := range []string{`operator = "distinct_hosts"`, "static = 10001", "static = 10002", "static = 10003"} {
		if !strings.Contains(src, want) {
			t.Errorf("HCL lacks %q:\n%s", want, src)
		}
	}
	c := agent.Client(t)
	job, err := c.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: src})
	if err != nil {
		t.Fatal(err)
	}
	resp, _, err := c.Jobs().Validate(job, nil)
	if err != nil || resp.Error != "" || len(resp.ValidationErrors) > 0 {
		t.Errorf("nomad job validate: %v %s %v", err, resp.Error, resp.ValidationErrors)
	}
}
