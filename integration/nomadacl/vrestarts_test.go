package nomadacl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestVolcanoRestartsReadFS: a Volcano Job's RestartTask (exit code 3 of
// worker-0 restarts every pod of the task: job_controller_actions.go
// killPods @v1.16.0-alpha.1) runs as on Volcano under `jobshift run` with
// the run policy's token, whose read-fs lets the watcher read the restart
// loop's records and alloc-lifecycle restart worker-1. With the same policy
// less read-fs the run says why once, and worker-1's first run, never
// restarted, fails the job.
func TestVolcanoRestartsReadFS(t *testing.T) {
	cl := up(t)
	site := cl.site(t, false)
	rules, err := os.ReadFile(filepath.Join(repo(), "docs", "nomad", "jobshift-run.policy.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	cl.policy(t, "jobshift-run", "")
	nofs := strings.Replace(string(rules), `"read-fs", `, "", 1)
	if nofs == string(rules) {
		t.Fatal("the run policy grants no read-fs")
	}
	if _, err := cl.c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "jobshift-run-nofs", Rules: nofs}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		policy, want, note string
	}{
		{"jobshift-run", "succeeded (exit code 0)", ""},
		{"jobshift-run-nofs", "failed (exit code 1)", "may not read the tasks' files (read-fs"},
	} {
		// the example as a Volcano user wrote it, its runs counted in a
		// directory of this test's
		runs := t.TempDir()
		if err := os.Chmod(runs, 0o777); err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join(repo(), "examples", "testdata", "volcano-policy-restarttask-all.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		job := filepath.Join(t.TempDir(), "restarttask-all.yaml")
		if err := os.WriteFile(job, []byte(strings.ReplaceAll(string(src), "$VC_RUNS", runs)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := cl.jobshift(t, cl.token(t, tc.policy), "run", "-to", "nomad", "-plain", "-config", site, job)
		if !strings.Contains(out, tc.want) || !strings.Contains(out, tc.note) || strings.Count(out, "read-fs") > 1 {
			t.Errorf("run with %s: want %q and %q (once):\n%s", tc.policy, tc.want, tc.note, out)
		}
	}
}
