package nomad

import (
	"math/rand/v2"
	"testing"

	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestInTaskEnvTrainerMatchesOracle is TestInTaskEnvMatchesOracle on random
// Kubeflow Trainer jobs (the trainer-* contracts).
func TestInTaskEnvTrainerMatchesOracle(t *testing.T) {
	checked := 0
	for n := range 40 {
		c := contracttest.RandomTrainer(41, n)
		r := rand.New(rand.NewPCG(42, uint64(n)))
		contracttest.AsTasks(r, c.Job)
		p := &translate.Plan{Job: c.Job, Contracts: c.Job.Contracts, User: c.Opts.User,
			Site:    &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", Helper: "/opt/jobshift"}},
			Options: map[string]string{OptWatched: "true"}}
		job, diags := BuildJob(p, nil)
		if diags.HasErrors() {
			t.Fatalf("%s: BuildJob: %v", c.Name, diags)
		}
		if job.Meta[MetaRendezvous] != RendezvousSnap {
			continue
		}
		co := &coordinator{groups: snapGroups(job), attempt: 0}
		items, missing := co.build(placementsOf(p.Job, JobIDFor(p), ContractOptions(p), c.Topo))
		if missing != "" {
			t.Fatalf("%s: placements miss %s", c.Name, missing)
		}
		for k, role := range p.Job.Roles {
			for _, task := range job.TaskGroups[k].Tasks {
				if role.Instances == 0 || task.Name != MainTask {
					continue
				}
				checkInTask(t, c, p, task, role, items)
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d tasks took the in-task path", checked)
	}
}
