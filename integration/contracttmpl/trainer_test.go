package contracttmpl

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestTrainerTemplatesMatchOracle: the trainer-* contracts of random
// TrainJobs rendered for Nomad (over service registrations, and over the
// watcher's snapshot) give every task the oracle's environment.
func TestTrainerTemplatesMatchOracle(t *testing.T) {
	for n := range 60 {
		c := contracttest.RandomTrainer(31, n)
		r := rand.New(rand.NewPCG(32, uint64(n)))
		jobID := "tj-" + fmt.Sprint(n)
		brain := registrations(t, r, c.Job, c.Topo, jobID, c.Opts, "")
		cj, err := contract.Compile(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Compile: %v", c.Name, err)
		}
		for k, role := range c.Job.Roles {
			text, err := contract.NomadTemplate(c.Job, role.Name, jobID, c.Opts)
			if err != nil {
				t.Fatalf("case %s role %s: NomadTemplate: %v", c.Name, role.Name, err)
			}
			path := "nomad/jobs/" + jobID + "/" + role.Name
			snap := contract.Snapshot{Path: path, AttemptEnv: "NOMAD_META_jobshift_attempt"}
			snapText, err := cj.NomadSnapshotTemplate(role.Name, c.Opts.Process, jobID, snap)
			if err != nil {
				t.Fatalf("case %s role %s: NomadSnapshotTemplate: %v", c.Name, role.Name, err)
			}
			snapBrain := snapshot(t, c.Job, c.Topo, jobID, path, "1", c.Opts)
			for _, i := range []int{0, role.Instances - 1} {
				want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: role.Name, Index: i}, c.Opts)
				if err != nil {
					t.Fatalf("case %s: Eval: %v", c.Name, err)
				}
				got, err := render(t, text, brain, jobID, i, contracttest.NomadNodeEnv(c.Topo, k, i)...)
				if err != nil {
					t.Fatalf("case %s task %d-%d: Nomad would reject the env file: %v", c.Name, k, i, err)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d (-oracle +nomad):\n%s", c.Name, k, i, diff)
				}
				env := append([]string{"NOMAD_ALLOC_INDEX=" + fmt.Sprint(i), "NOMAD_JOB_ID=" + jobID, "NOMAD_META_jobshift_attempt=1"}, contracttest.NomadNodeEnv(c.Topo, k, i)...)
				got, err = renderEnv(t, snapText, snapBrain, env)
				if err != nil {
					t.Fatalf("case %s task %d-%d: snapshot env file rejected: %v", c.Name, k, i, err)
				}
				if diff := cmp.Diff(want.Map(), got); diff != "" {
					t.Fatalf("case %s task %d-%d (-oracle +snapshot):\n%s", c.Name, k, i, diff)
				}
			}
		}
	}
}
