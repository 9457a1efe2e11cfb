package contracttmpl

import (
	"math/rand/v2"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// BenchmarkExecute500 is the work a Nomad client does for one task of a
// 500-task job (ps ×20, worker ×480, pai + tf + torch): execute the env
// template over 1500 registrations and parse the env file.
func BenchmarkExecute500(b *testing.B) {
	ports := func() []jobs.Port {
		return []jobs.Port{{Label: "SynPort", Count: 1}, {Label: "ssh", Count: 1, Implicit: true}, {Label: "http", Count: 1, Implicit: true}}
	}
	one := 1
	j := &jobs.Job{Name: "big", Source: jobs.Source{Format: jobs.FormatPAIv2},
		Contracts: []string{jobs.ContractPAI, jobs.ContractTF, jobs.ContractTorch},
		Roles: []*jobs.Role{
			{Name: "ps", Instances: 20, Ports: ports(), MinFailed: &one},
			{Name: "worker", Instances: 480, Ports: ports(), MinFailed: &one},
		}}
	opts := contract.Options{User: "alice"}
	topo := contract.SampleTopologyFor(j, opts)
	brain := registrations(b, rand.New(rand.NewPCG(1, 1)), j, topo, "big", opts, "")
	text, err := contract.NomadTemplate(j, "worker", "big", opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(text)), "template-bytes")
	for b.Loop() {
		env, err := render(b, text, brain, "big", 479)
		if err != nil || len(env) == 0 {
			b.Fatal(err)
		}
	}
}
