package drivertest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// PrintedEnv is what a task printed as "env NAME=VALUE" lines: the
// training-operator kinds' examples (xgb_train.py, rendezvous.py) print
// every operator variable their process was given, and no other.
func PrintedEnv(out string) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if kv, ok := strings.CutPrefix(line, "env "); ok {
			n, v, _ := strings.Cut(kv, "=")
			env[n] = v
		}
	}
	return env
}

// CheckPrintedEnv compares the variables task printed (PrintedEnv of its
// output) with the oracle's for topo: equal names and values, so a
// variable the oracle gives only other tasks (PaddleJob's POD_IP_DUMMY)
// fails as well as a missing or wrong one.
func CheckPrintedEnv(t *testing.T, job *jobs.Job, topo contract.Topology, opts contract.Options, task jobs.TaskRef, out string) {
	t.Helper()
	want, err := contract.Eval(job, topo, task, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.Map(), PrintedEnv(out)); d != "" {
		t.Errorf("%s-%d: the process's environment (-oracle +task):\n%s", task.Role, task.Index, d)
	}
}
