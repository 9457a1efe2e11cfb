package translate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// TestDefaults: the site's defaults fill only what a role left unrequested
// (after role rules); what stays unrequested is a warning at the role.
func TestDefaults(t *testing.T) {
	cfg, diags := siteconfig.ParseConfig([]byte("defaults {\n  cpu = 2\n  memory_mib = 4096\n  shm_mib = 1024\n}\nrole \"ps\" { memory_mib = 512 }\n"), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cases := []struct {
		name     string
		in       jobs.Resources
		site     *siteconfig.Config
		want     jobs.Resources
		warnings []string
	}{
		{"nothing asked, defaults", jobs.Resources{}, cfg, jobs.Resources{CPUMilli: 2000, MemoryMiB: 4096, ShmMiB: 1024}, nil},
		{"nothing asked, no defaults", jobs.Resources{}, &siteconfig.Config{}, jobs.Resources{}, []string{"No CPU and memory requested"}},
		{"cpu asked", jobs.Resources{CPUMilli: 500}, &siteconfig.Config{}, jobs.Resources{CPUMilli: 500}, []string{"No memory requested"}},
		{"all asked", jobs.Resources{CPUMilli: 500, MemoryMiB: 100, ShmMiB: 64, ShmSet: true}, cfg, jobs.Resources{CPUMilli: 500, MemoryMiB: 100, ShmMiB: 64, ShmSet: true}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := &jobs.Job{Name: "j", Roles: []*jobs.Role{{Name: "worker", Instances: 1, Resources: tc.in}}}
			p, diags := Build(job, tc.site, nil, "u")
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			if d := cmp.Diff(tc.warnings, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, p.Job.Roles[0].Resources); d != "" {
				t.Errorf("resources (-want +got):\n%s", d)
			}
		})
	}
	// a role rule wins over the defaults; the defaults fill the rest
	job := &jobs.Job{Name: "j", Roles: []*jobs.Role{{Name: "ps", Instances: 1}}}
	p, _ := Build(job, cfg, nil, "u")
	if d := cmp.Diff(jobs.Resources{CPUMilli: 2000, MemoryMiB: 512, ShmMiB: 1024}, p.Job.Roles[0].Resources); d != "" {
		t.Errorf("ps (-want +got):\n%s", d)
	}
}
