package plugin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestJobRoundTrip fails when a field is added to the job model (or the
// site config) without a counterpart in the wire form.
func TestJobRoundTrip(t *testing.T) {
	var job jobs.Job
	fill(&job)
	// A config built in code has no source and no ranges; it travels as JSON.
	var site siteconfig.Config
	fill(&site)
	site.Source = nil
	clearRanges(&site)
	plan := &translate.Plan{Job: &job, Contracts: []string{"pai", "tf"}, User: "alice~'$(x)", Site: &site,
		Options: map[string]string{"layout": "packed"}}
	wire, err := PlanToPB(plan)
	if err != nil {
		t.Fatal(err)
	}
	back, err := PlanFromPB(wire)
	if err != nil {
		t.Fatal(err)
	}
	// The compiled part is not sent: each side compiles the plan it has.
	if diff := cmp.Diff(plan, back, cmpopts.IgnoreUnexported(translate.Plan{})); diff != "" {
		t.Errorf("plan changed on the wire (-sent +received):\n%s", diff)
	}
	if diff := cmp.Diff(plan.Compiled().Policy, back.Compiled().Policy); diff != "" {
		t.Errorf("the completion policy differs across the wire (-sent +received):\n%s", diff)
	}
}

// TestCommandNilVersusEmpty: an absent Kubeflow command (use the image's
// ENTRYPOINT) must not turn into an explicitly empty one, or vice versa.
func TestCommandNilVersusEmpty(t *testing.T) {
	cases := map[string]jobs.Command{
		"absent":        {Kind: jobs.CommandArgv},
		"empty command": {Kind: jobs.CommandArgv, Command: []string{}, Args: []string{}},
		"args only":     {Kind: jobs.CommandArgv, Args: []string{"--x", ""}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			job := &jobs.Job{Roles: []*jobs.Role{{Name: "w", Command: c}}}
			w, err := JobToPB(job)
			if err != nil {
				t.Fatal(err)
			}
			back, err := JobFromPB(w)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(job, back); diff != "" {
				t.Errorf("(-sent +received):\n%s", diff)
			}
		})
	}
}

// TestSiteConfigFromFile: a config read from a file travels as its text and
// is parsed again, so every range (and so every diagnostic position) is kept.
func TestSiteConfigFromFile(t *testing.T) {
	src := []byte(`nomad {
  address     = "http://127.0.0.1:4646"
  datacenters = ["dc1", "dc2"]
  driver      = "raw_exec"
}
slurm {
  partition = "gpu"
  layout    = "packed"
}
image "10.11.3.8:5000/*" { replace = "registry.example/mirror/*" }
role "ps" { driver = "raw_exec" }
gpu_type "titanxp" { model = "TITAN Xp" }
plugins { dirs = ["/opt/jobshift/plugins"] }
volume "training" { path = "/lustre/proj/${user}/training" }
volume "ckpt" {
  nomad_csi_volume = "ckpt"
  access_mode      = "multi-node-multi-writer"
}
trainer {
  runtime_dirs = ["/etc/jobshift/runtimes"]
}
`)
	site, diags := siteconfig.ParseConfig(src, "/etc/jobshift/jobshift.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan := &translate.Plan{Job: &jobs.Job{Name: "j"}, Site: site}
	wire, err := PlanToPB(plan)
	if err != nil {
		t.Fatal(err)
	}
	back, err := PlanFromPB(wire)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(site, back.Site); diff != "" {
		t.Errorf("site config changed on the wire (-sent +received):\n%s", diff)
	}
	if back.Site.Nomad == nil || back.Site.Nomad.Range.Start.Line != 1 {
		t.Errorf("nomad block range lost: %+v", back.Site.Nomad)
	}
	if len(back.Site.Volumes) != 2 || back.Site.Trainer == nil {
		t.Errorf("volume rules or trainer block lost: %+v %+v", back.Site.Volumes, back.Site.Trainer)
	}
}

// TestNoContractsAcrossTheWire: `-contract =` (no contract at all) stays no
// contract in a plugin, not the job's default contracts.
func TestNoContractsAcrossTheWire(t *testing.T) {
	job := &jobs.Job{Name: "j", Contracts: []string{"pai"}, Roles: []*jobs.Role{{Name: "worker", Instances: 2,
		Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 512}, Command: jobs.Command{Kind: jobs.CommandEval, Script: "true"},
		Ports: []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}}}}}
	for name, flags := range map[string][]string{"none (-contract =)": {"="}, "defaults": nil} {
		plan, diags := translate.Build(job, nil, flags, "alice")
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags.Errs())
		}
		wire, err := PlanToPB(plan)
		if err != nil {
			t.Fatal(err)
		}
		back, err := PlanFromPB(wire)
		if err != nil {
			t.Fatal(err)
		}
		sent, got := plan.Compiled().Contract, back.Compiled().Contract
		if diff := cmp.Diff(sent, got); diff != "" {
			t.Errorf("%s: contract options differ across the wire (-sent +received):\n%s", name, diff)
		}
	}
}

// TestSecretsNotInDecodeErrors: malformed secrets on the wire are refused
// without quoting any of their bytes.
func TestSecretsNotInDecodeErrors(t *testing.T) {
	w, err := JobToPB(&jobs.Job{Name: "j"})
	if err != nil {
		t.Fatal(err)
	}
	w.SecretsJson = []byte(`{"token": hunter2}`)
	_, err = JobFromPB(w)
	if err == nil {
		t.Fatal("malformed secrets were accepted")
	}
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "'h'") {
		t.Errorf("the error quotes the secret: %v", err)
	}
}
