package contracttmpl

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// FuzzValuesTravel: whatever user, job name and virtual cluster a job has,
// the Nomad rendering either delivers them byte for byte (consul-template,
// then Nomad's env parser) or the contract rejects them up front.
func FuzzValuesTravel(f *testing.F) {
	for _, h := range contracttest.Hostile {
		f.Add("alice", h, h)
		f.Add(h, "job", "")
	}
	f.Add("u", "\u2028\u2029<>&", "\x7f\x01")
	f.Fuzz(func(t *testing.T, user, name, vc string) {
		j := &jobs.Job{Name: name, VirtualCluster: vc, Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn},
			OutputDir: name + "/$PAI_USER_NAME",
			Roles:     []*jobs.Role{{Name: "w.1", Instances: 2, Ports: []jobs.Port{{Label: "ssh", Count: 1}, {Label: "http", Count: 1}}}}}
		opts := contract.Options{User: user}
		topo := contract.SampleTopologyFor(j, opts)
		want, err := contract.Eval(j, topo, jobs.TaskRef{Role: "w.1", Index: 1}, opts)
		if errors.Is(err, contract.ErrJob) {
			return // rejected with a diagnostic
		}
		if err != nil {
			t.Fatal(err)
		}
		text, err := contract.NomadTemplate(j, "w.1", "fz", opts)
		if err != nil {
			t.Fatalf("Eval accepted what NomadTemplate rejects: %v", err)
		}
		got, err := render(t, text, registrations(t, rand.New(rand.NewPCG(1, 1)), j, topo, "fz", opts, ""), "fz", 1)
		if err != nil {
			t.Fatalf("Nomad would reject the env file: %v", err)
		}
		if diff := cmp.Diff(want.Map(), got); diff != "" {
			t.Fatalf("(-oracle +nomad):\n%s", diff)
		}
	})
}
