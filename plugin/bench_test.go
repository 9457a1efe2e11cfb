package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// benchPlans: a typical job (the PAI v1 ps×2/worker×2 example) and a
// 500-task one (the same job with 2 ps and 498 workers).
func benchPlans(b *testing.B) map[string]*translate.Plan {
	f := "../examples/pai-v1-ps-worker.json"
	job, diags := load.Load(f, jobs.ReadOptions{Path: f})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	typical, diags := translate.Build(job, &siteconfig.Config{}, nil, "alice")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	big, _ := load.Load(f, jobs.ReadOptions{Path: f})
	big.Roles[1].Instances = 498
	bigPlan, diags := translate.Build(big, &siteconfig.Config{}, nil, "alice")
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	return map[string]*translate.Plan{"typical": typical, "500tasks": bigPlan}
}

// BenchmarkRender measures Render of the nomad driver in-process and
// through the plugin protocol (a jobshift binary serving it out of
// process): the difference is what the plugin boundary costs.
func BenchmarkRender(b *testing.B) {
	dir := b.TempDir()
	bin := buildJobshift(b, dir)
	if err := os.Symlink(bin, filepath.Join(dir, BinaryPrefix+"nomad")); err != nil {
		b.Fatal(err)
	}
	ext, err := OpenDriver("nomad", []string{dir}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ext.Close()
	in, err := drivers.New("nomad", drivers.Config{Site: &siteconfig.Config{}})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"typical", "500tasks"} {
		p := benchPlans(b)[name]
		for _, via := range []struct {
			name string
			d    drivers.Driver
		}{{"in-process", in}, {"plugin", ext}} {
			b.Run(fmt.Sprintf("%s/%s", name, via.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := via.d.Render(context.Background(), p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkBoundary isolates what crossing the plugin boundary costs for
// one Render: encoding the plan, a gRPC round trip over a real connection
// and decoding the artifact, with a driver that does no work.
func BenchmarkBoundary(b *testing.B) {
	for name, p := range benchPlans(b) {
		b.Run(name, func(b *testing.B) {
			art := &drivers.Artifact{MediaType: "application/hcl", Files: []drivers.File{{Name: "job.nomad.hcl", Data: make([]byte, 8<<10*p.Job.TaskCount()/4)}}}
			client, _ := goplugin.TestPluginGRPCConn(b, false, map[string]goplugin.Plugin{PluginName: &GRPCDriverPlugin{Impl: &recordingDriver{artifact: art}}})
			defer client.Close()
			raw, err := client.Dispense(PluginName)
			if err != nil {
				b.Fatal(err)
			}
			d := raw.(drivers.Driver)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := d.Render(context.Background(), p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
