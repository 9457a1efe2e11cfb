package bench

// BenchmarkRoles measures what `jobshift convert` costs on an OpenPAI v2
// job of many task roles (issue 42: OpenPAI had no role limit; 300 roles
// must convert in under 5 s and 1 GB): N roles r0..r<N-1> of one instance
// each, one SynPort each, every command reading r0's address. Each
// target's sub-benchmark does validate's work and the driver's Render and
// reports out-bytes (the artifact) beside B/op (every byte allocated) and
// cpu-ns/op. Every task of such a job sees every role's variables
// (PAI_HOST_IP_<role>_<i>, ...), so the output grows with N² on every
// target that writes the environment per group; what matters is the
// constant.
//
//	go test ./bench -run '^$' -bench Roles -benchtime 1x -benchmem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/drivers"
)

var roleCounts = []int{16, 300}

// rolesJobFile writes an OpenPAI v2 job of n task roles, as a user with
// one role per parameter server or worker type would write it.
func rolesJobFile(b *testing.B, dir string, n int) string {
	b.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "protocolVersion: 2\nname: roles%d\ntype: job\nprerequisites:\n  - type: dockerimage\n    name: python\n    uri: python:3.11-slim\ntaskRoles:\n", n)
	for i := range n {
		fmt.Fprintf(&s, `  r%d:
    instances: 1
    dockerImage: python
    resourcePerInstance:
      cpu: 1
      memoryMB: 512
      gpu: 0
      ports:
        SynPort: 1
    commands:
      - echo $PAI_HOST_IP_r0_0:$PAI_r0_0_SynPort_PORT
`, i)
	}
	f := filepath.Join(dir, fmt.Sprintf("roles-%d.yaml", n))
	if err := os.WriteFile(f, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkRoles(b *testing.B) {
	dir := b.TempDir()
	for _, n := range roleCounts {
		path := rolesJobFile(b, dir, n)
		for _, target := range []string{"nomad", "nomad-json", "slurm"} {
			b.Run(fmt.Sprintf("%s-%d", target, n), func(b *testing.B) {
				b.ReportAllocs()
				defer cpuClock(b)()
				var size int
				for b.Loop() {
					plan := validateWork(b, path)
					d, err := drivers.New(target, drivers.Config{Site: plan.Site})
					if err != nil {
						b.Fatal(err)
					}
					art, err := d.Render(context.Background(), plan)
					if err != nil {
						b.Fatal(err)
					}
					size = len(art.Files[0].Data)
				}
				b.ReportMetric(float64(size), "out-bytes")
			})
		}
	}
}
