package contract_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestTrainerShellMatchesOracle: the trainer-* contracts rendered as shell
// give every task of random TrainJobs the oracle's environment.
func TestTrainerShellMatchesOracle(t *testing.T) {
	shs := shells(t)
	for n := range 40 {
		c := contracttest.RandomTrainer(21, n)
		script, err := contract.Shell(c.Job, c.Opts)
		if err != nil {
			t.Fatalf("case %s: Shell: %v", c.Name, err)
		}
		for k, r := range c.Job.Roles {
			for _, i := range []int{0, r.Instances - 1} {
				want, err := contract.Eval(c.Job, c.Topo, jobs.TaskRef{Role: r.Name, Index: i}, c.Opts)
				if err != nil {
					t.Fatalf("case %s: Eval: %v", c.Name, err)
				}
				for _, sh := range shs {
					got, stderr, err := runShell(t, sh, script, shellInput(c.Job, c.Topo, c.Opts, k, i, ""))
					if err != nil {
						t.Fatalf("case %s task %d-%d under %s: %v\n%s", c.Name, k, i, sh, err, stderr)
					}
					if diff := cmp.Diff(want.Map(), got); diff != "" {
						t.Fatalf("case %s task %d-%d under %s (-oracle +shell):\n%s", c.Name, k, i, sh, diff)
					}
				}
			}
		}
	}
}
