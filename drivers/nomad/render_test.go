package nomad

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/hcl"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
)

var update = flag.Bool("update", false, "rewrite golden files")

func plan(j *jobs.Job, site *hcl.Config) *translate.Plan {
	if site == nil {
		site = &hcl.Config{}
	}
	return &translate.Plan{Job: j, Site: site, User: "alice", Options: map[string]string{}}
}

func rawExecSite() *hcl.Config {
	return &hcl.Config{Nomad: &hcl.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, Datacenters: []string{"dc1"}, BarrierTimeout: "2m"}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func render(t *testing.T, asJSON bool, p *translate.Plan) []byte {
	t.Helper()
	d, _ := New(drivers.Config{Site: p.Site}, asJSON)
	art, err := d.WithContract(fixtureContract{}).Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return art.Files[0].Data
}

func TestRenderGolden(t *testing.T) {
	cases := map[string]*translate.Plan{
		"ps-worker-raw_exec": plan(psWorker("mesh", `python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST`), rawExecSite()),
		"ps-worker-docker":   plan(psWorker("mesh", `python3 mesh.py`), nil),
		"interpolated":       plan(psWorker("x y/z", `echo ${HOME} '{{ "x" }}' %{x}`), rawExecSite()),
	}
	for name, p := range cases {
		golden(t, name+".nomad.hcl", render(t, false, p))
		golden(t, name+".nomad.json", render(t, true, p))
	}
}

func TestRenderErrors(t *testing.T) {
	gpuless := psWorker("x", "true")
	gpuless.Roles[0].Command = jobs.Command{Kind: jobs.CommandArgv, Args: []string{"${X}"}, Pos: jobs.Pos{File: "j.yaml", Line: 3, Col: 5}}
	noImage := psWorker("x", "true")
	noImage.Roles[1].Image = ""
	cases := map[string]struct {
		p    *translate.Plan
		want string
	}{
		"entrypoint-with-interpolated-args": {plan(gpuless, nil), "Command cannot run on Nomad"},
		"docker-without-image":              {plan(noImage, nil), "No image"},
		"bad-barrier-timeout": {plan(psWorker("x", "true"), &hcl.Config{Nomad: &hcl.NomadConfig{BarrierTimeout: "soon"}}),
			"Invalid barrier_timeout"},
	}
	for name, c := range cases {
		_, diags := BuildJob(c.p, fixtureContract{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: want error %q, got %v", name, c.want, diags)
		}
	}
}

func TestRenderRealContract(t *testing.T) {
	// The real contract (translate/contract) renders the same job; its
	// text is that package's to test, here only that it is placed.
	j := psWorker("mesh", "true")
	j.Contracts = []string{jobs.ContractPAI}
	for _, r := range j.Roles {
		r.Ports = append(r.Ports, jobs.Port{Label: "http", Count: 1, Implicit: true}, jobs.Port{Label: "ssh", Count: 1, Implicit: true})
	}
	job, diags := BuildJob(plan(j, rawExecSite()), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tmpl := *job.TaskGroups[1].Tasks[1].Templates[0].EmbeddedTmpl
	if !strings.Contains(tmpl, "PAI_TASK_ROLE_ps_HOST_LIST") {
		t.Errorf("worker env template lacks the pai contract:\n%s", tmpl)
	}
}

func TestNames(t *testing.T) {
	cases := map[string][2]string{
		"plain":    {JobID("mesh"), "mesh"},
		"pai":      {JobID("alice~mesh job.v1"), "alice-mesh-job-v1"},
		"service":  {ServiceName("Job_1", "PS"), "job-1-ps"},
		"long-svc": {ServiceName(strings.Repeat("a", 80)), strings.Repeat("a", 54) + "-" + "d1b0a1d0"},
	}
	for name, c := range cases {
		if name == "long-svc" {
			if len(c[0]) > 63 || !strings.HasPrefix(c[0], strings.Repeat("a", 54)+"-") {
				t.Errorf("%s: %q", name, c[0])
			}
			continue
		}
		if c[0] != c[1] {
			t.Errorf("%s: got %q want %q", name, c[0], c[1])
		}
	}
}
