package main

import "testing"

// TestOtherKindsGolden: explain -env, convert -to nomad and validate -to
// slurm for one job of each training-operator kind, as the CLI prints them
// (the Slurm scripts' rendered part is in drivers/slurm's goldens).
func TestOtherKindsGolden(t *testing.T) {
	files := map[string]string{
		"xgboostjob": "../../examples/xgboostjob-iris.yaml",
		"paddlejob":  "../../integration/slurm/testdata/env-paddle-ps.yaml",
		"jaxjob":     "../../examples/jaxjob-coordinator.yaml",
		"mxjob":      "../../integration/slurm/testdata/env-mxnet.yaml",
	}
	for kind, file := range files {
		for name, args := range map[string][]string{
			"explain-env":   {"explain", "-env", file},
			"convert-nomad": {"convert", "-to", "nomad", file},
			"validate-to":   {"validate", "-to", "slurm", file},
		} {
			t.Run(kind+"-"+name, func(t *testing.T) {
				isolate(t)
				got, code := runCLI(t, args, "")
				if code != 0 {
					t.Errorf("exit %d:\n%s", code, got)
				}
				checkGolden(t, "kinds-"+kind+"-"+name, got)
			})
		}
	}
}
