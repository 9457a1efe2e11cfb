package slurm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/translate/completion"
)

// TestTaskHostName: under Slurm each task of a PyTorchJob sees its pod's
// name (<job>-<replica type>-<i>) from hostname(1), $HOSTNAME and
// gethostname(), and the name resolves to the task's address in the
// topology (drivers/taskns through js_exec_view); where the nodes allow no
// namespace the task says so on its stderr instead.
func TestTaskHostName(t *testing.T) {
	needCluster(t)
	plan := loadPlan(t, filepath.Join(repoRoot(), "integration", "testdata", "view", "hostname.yaml"), nil)
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final %+v", r.final)
	}
	topo, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", "topology"))
	for _, tc := range []struct{ out, name, addr string }{
		{"master-0", "names-master-0", "JS_R0_ADDR_0="}, {"worker-0", "names-worker-0", "JS_R1_ADDR_0="}, {"worker-1", "names-worker-1", "JS_R1_ADDR_1="},
	} {
		out, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", tc.out+".out"))
		errOut, _ := os.ReadFile(filepath.Join(r.state, "attempt-1", tc.out+".err"))
		if strings.Contains(string(errOut), "keeps the node's host name") {
			t.Skipf("the nodes allow no namespace: %s", errOut)
		}
		addr := ""
		for _, l := range strings.Split(string(topo), "\n") {
			if strings.HasPrefix(l, tc.addr) {
				addr = strings.TrimPrefix(l, tc.addr)
			}
		}
		want := "hostname=" + tc.name + " HOSTNAME=" + tc.name + "\ngethostname=" + tc.name + " resolves=" + addr + "\n"
		if string(out) != want {
			t.Errorf("%s printed %q, want %q (stderr %q)", tc.out, out, want, errOut)
		}
	}
}
