package nomad

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/shvars"
)

// wrapperReserved: the wrappers' own variables, _<letters>_ (one prefix
// per wrapper or library part: _g_ stop-group.sh, _k_ restart-loop.sh,
// _t_ the restart data, _jsh_ env-wait.sh, the restart library's own).
var wrapperReserved = regexp.MustCompile(`^_[a-z]+_`)

// TestWrappersKeepJobVariables: a job variable named as one of the Nomad
// wrappers' own (stop, child, rc, ...) reaches the command unchanged,
// under the stop wrapper, the restart loop and the env wait.
func TestWrappersKeepJobVariables(t *testing.T) {
	_, loop := loopOf(t, crashJob("OnFailure", nil, "true"), nil)
	if loop == "" {
		t.Fatal("no restart loop")
	}
	dir := t.TempDir()
	envFile := filepath.Join(dir, "jobshift.env.sh")
	if err := os.WriteFile(envFile, []byte("JOB_VAR=1\nexport JOB_VAR\n_jsh_env_ready=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ code, arg0 string }{
		"stop-group": {stopGroupArg, "jobshift-group"}, "restart-loop": {loop, restartArg0}, "env-wait": {envWaitArg, envWaitArg0},
	} {
		t.Run(name, func(t *testing.T) {
			sentinels := shvars.Sentinels(c.code, wrapperReserved, func(n string) bool {
				return shvars.Shell(n) || strings.HasPrefix(n, "NOMAD_")
			})
			cmd := exec.Command("dash", "-c", c.code, c.arg0, "env")
			cmd.Dir = dir
			cmd.Env = append(shvars.Env(sentinels), "PATH=/usr/bin:/bin", "NOMAD_TASK_DIR="+dir)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			shvars.Check(t, string(out), sentinels)
		})
	}
}
