package translate

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

func TestResolveContracts(t *testing.T) {
	cases := map[string]struct {
		defaults, values []string
		want             []string
		errs             int
	}{
		"defaults kept":           {[]string{"pai"}, nil, []string{"pai"}, 0},
		"add":                     {[]string{"pai"}, []string{"tf"}, []string{"pai", "tf"}, 0},
		"add list, dedupe":        {[]string{"pai"}, []string{"tf, pai,torch"}, []string{"pai", "tf", "torch"}, 0},
		"replace":                 {[]string{"pai", "pai-yarn"}, []string{"=tf"}, []string{"tf"}, 0},
		"replace then add":        {[]string{"pai"}, []string{"=leinao", "tf"}, []string{"leinao", "tf"}, 0},
		"replace with nothing":    {[]string{"pai"}, []string{"="}, nil, 0},
		"unknown is an error":     {[]string{"pai"}, []string{"tf,horovod", "nope"}, []string{"pai", "tf"}, 2},
		"no defaults, add":        {nil, []string{"uai"}, []string{"uai"}, 0},
		"empty items are skipped": {nil, []string{",tf,,"}, []string{"tf"}, 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, diags := ResolveContracts(tc.defaults, tc.values)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("contracts (-want +got):\n%s", diff)
			}
			if n := len(diags.Errs()); n != tc.errs {
				t.Errorf("%d errors, want %d: %s", n, tc.errs, diags.Error())
			}
		})
	}
}

func TestResolveUser(t *testing.T) {
	cases := map[string]struct {
		explicit, env, want string
		err                 bool
	}{
		"explicit":          {"alice", "bob", "alice", false},
		"$USER":             {"", "bob", "bob", false},
		"fallback":          {"", "", DefaultUser, false},
		"odd $USER ignored": {"", "a b", DefaultUser, false},
		"bad explicit":      {"a~b", "bob", DefaultUser, true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("USER", tc.env)
			got, diags := ResolveUser(tc.explicit)
			if got != tc.want || diags.HasErrors() != tc.err {
				t.Errorf("got %q, errors=%v; want %q, errors=%v", got, diags.HasErrors(), tc.want, tc.err)
			}
		})
	}
}

func testJob() *jobs.Job {
	p := func(l int) jobs.Pos { return jobs.Pos{File: "job.json", Line: l, Col: 3} }
	// the ports the PAI readers add to every role (the contracts check them)
	ports := func() []jobs.Port {
		return []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}}
	}
	return &jobs.Job{Name: "j", Contracts: []string{"pai"}, Roles: []*jobs.Role{
		{Name: "ps", Instances: 1, Image: "10.11.3.8:5000/pai-images/deepo:v2.0", Ports: ports(),
			Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 8192, Pos: p(5)}},
		{Name: "worker", Instances: 2, Image: "openpai/pai.example.tensorflow", Ports: ports(),
			Env:       []jobs.EnvVar{{Name: "NCCL_DEBUG", Value: "WARN", Pos: p(9)}},
			Resources: jobs.Resources{CPUMilli: 4000, MemoryMiB: 8192, GPU: 1, GPUType: "titanxp", Pos: p(10)}},
	}}
}

func TestBuildAppliesSiteRules(t *testing.T) {
	cfg, diags := siteconfig.ParseConfig([]byte(`
image "10.11.3.8:5000/*" { replace = "mirror.example/*" }
role "ps" {
  cpu        = 1
  memory_mib = 1024
  shm_mib    = 64
}
role "*" { env = { NCCL_DEBUG = "INFO", OMP_NUM_THREADS = "4" } }
gpu_type "v100" { model = "Tesla V100" }
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	job := testJob()
	plan, diags := Build(job, cfg, []string{"tf"}, "alice")

	type roleView struct {
		Image          string
		CPU, Mem, Shm  int64
		Env            []string
		ShmSet         bool
		InstancesKept  int
		GPUTypeKeptRaw string
	}
	view := func(r *jobs.Role) roleView {
		v := roleView{Image: r.Image, CPU: r.Resources.CPUMilli, Mem: r.Resources.MemoryMiB, Shm: r.Resources.ShmMiB,
			ShmSet: r.Resources.ShmSet, InstancesKept: r.Instances, GPUTypeKeptRaw: r.Resources.GPUType}
		for _, e := range r.Env {
			v.Env = append(v.Env, e.Name+"="+e.Value+"@"+e.Pos.String())
		}
		return v
	}
	got := map[string]roleView{}
	for _, r := range plan.Job.Roles {
		got[r.Name] = view(r)
	}
	want := map[string]roleView{
		// ps matches role "ps" first, so the "*" env rule does not apply.
		"ps": {Image: "mirror.example/pai-images/deepo:v2.0", CPU: 1000, Mem: 1024, Shm: 64, ShmSet: true, InstancesKept: 1},
		"worker": {Image: "openpai/pai.example.tensorflow", CPU: 4000, Mem: 8192, InstancesKept: 2, GPUTypeKeptRaw: "titanxp",
			// The job's NCCL_DEBUG wins; the site's OMP_NUM_THREADS is added at the rule's position.
			Env: []string{"NCCL_DEBUG=WARN@job.json:9:3", "OMP_NUM_THREADS=4@site.hcl:8:1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan roles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(testJob(), job); diff != "" {
		t.Errorf("Build modified the caller's job (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pai", "tf"}, plan.Contracts); diff != "" {
		t.Errorf("contracts (-want +got):\n%s", diff)
	}
	if plan.User != "alice" || plan.Site != cfg {
		t.Errorf("user %q, site %p; want alice, %p", plan.User, plan.Site, cfg)
	}
	type diagView struct {
		Sev     hcl.DiagnosticSeverity
		Summary string
		At      string
	}
	var gotDiags []diagView
	for _, d := range diags {
		gotDiags = append(gotDiags, diagView{d.Severity, d.Summary, rangePos(*d.Subject).String()})
	}
	wantDiags := []diagView{
		{hcl.DiagWarning, "Site env not applied", "job.json:9:3"},
		{hcl.DiagWarning, "GPU type not mapped", "job.json:10:3"},
	}
	if diff := cmp.Diff(wantDiags, gotDiags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestBuildWithoutSiteConfig(t *testing.T) {
	t.Setenv("USER", "")
	plan, diags := Build(testJob(), nil, nil, "")
	if plan.Site == nil || plan.User != DefaultUser || plan.Options == nil {
		t.Fatalf("plan = %+v", plan)
	}
	if diff := cmp.Diff(testJob().Roles, plan.Job.Roles); diff != "" {
		t.Errorf("roles changed without a site config (-want +got):\n%s", diff)
	}
	// Only the unmapped GPU type is worth a warning.
	if len(diags) != 1 || diags[0].Summary != "GPU type not mapped" {
		t.Errorf("diagnostics: %s", diags.Error())
	}
}

// TestBuildRewritesInitImages: an init container's image takes the
// site's image rule as its pod's main container's does, and the caller's
// job keeps its own.
func TestBuildRewritesInitImages(t *testing.T) {
	cfg, diags := siteconfig.ParseConfig([]byte(`image "busybox*" { replace = "mirror.example/busybox:stable" }`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	job := testJob()
	job.Roles[0].Init = []jobs.InitStep{{Name: "fetch", Image: "busybox:1.36", Command: jobs.Command{Command: []string{"true"}}}, {Name: "other", Image: "alpine:3"}}
	plan, _ := Build(job, cfg, nil, "alice")
	if plan == nil {
		t.Fatal("no plan")
	}
	got := []string{plan.Job.Roles[0].Init[0].Image, plan.Job.Roles[0].Init[1].Image, job.Roles[0].Init[0].Image}
	if want := []string{"mirror.example/busybox:stable", "alpine:3", "busybox:1.36"}; !slices.Equal(got, want) {
		t.Errorf("init images %q, want %q (plan's, then the caller's)", got, want)
	}
}
