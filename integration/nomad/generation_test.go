package nomad_test

import (
	"path/filepath"
	"testing"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestGenerationsOnRawExec: jobs of older Kubeflow apiVersions get their
// generation's environment through the Nomad template (compared with the
// oracle), and a kubeflow.org/v1alpha1 TFJob ends with its chief: the
// master's exit 1 fails it although its restartPolicy is OnFailure, and the
// worker's earlier exit 2 decided nothing. The job files are the Slurm
// integration test's.
func TestGenerationsOnRawExec(t *testing.T) {
	c := agent.Client(t)
	dir := filepath.Join(agent.Repo(), "integration", "slurm", "testdata")
	cases := map[string]struct {
		file  string
		phase completion.Phase
		code  int
	}{
		"tf v1alpha2: no evaluator in TF_CONFIG":       {"env-tf-v1alpha2.yaml", completion.PhaseSucceeded, 0},
		"pytorch v1beta1: MASTER_ADDR=localhost":       {"env-torch-v1beta1.yaml", completion.PhaseSucceeded, 0},
		"pytorch v1alpha1: TF_CONFIG with ranks":       {"env-torch-v1alpha1.yaml", completion.PhaseSucceeded, 0},
		"tf v1alpha1: the chief's exit 1 ends the job": {"v1alpha1-chief.yaml", completion.PhaseFailed, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(dir, tc.file), site())
			if tc.phase == completion.PhaseSucceeded {
				drivertest.LingerAfter(p, 20) // dump-and-exit tasks: see LingerAfter
			}
			res, id := run(t, p)
			defer func() { _, _, _ = c.Jobs().Deregister(id, true, nil) }()
			if res.Phase != tc.phase || res.ExitCode != tc.code {
				t.Fatalf("result %+v, want %s with exit code %d", res, tc.phase, tc.code)
			}
			if tc.phase == completion.PhaseSucceeded {
				checkEnvAgainstOracle(t, c, p, id)
			}
		})
	}
}
