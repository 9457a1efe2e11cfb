// Package envdump lets a test see the environment every task's command
// really started with, on any target whose tasks share a file system with
// the test (local, raw_exec, Slurm, the multi-host clusters of this
// machine), and compare it with the contract oracle's: the job is run as
// written, each role's command preceded by a dump of its environment.
package envdump

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

// script writes the environment (env -0) to a new file made from the
// template in $0, then runs the task's own command ("$@") in its place.
const script = `f=$(mktemp "$0") && chmod 644 "$f" && env -0 >"$f"; exec "$@"`

// Wrap makes every role of p whose own command runs dump its environment
// into dir (made writable for the tasks' user) as ROLE.XXXXXX, then run its
// command unchanged; it returns the roles it wrapped. A role whose command
// the ssh emulation replaces by its sshd (an MPI node) runs no command of
// its own, and a script (OpenPAI's) is no argv to prefix: both are left as
// they are.
func Wrap(t *testing.T, p *translate.Plan, dir string) map[string]bool {
	t.Helper()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	wrapped := map[string]bool{}
	for _, r := range p.Job.Roles {
		if rp := p.Compiled().Role(r.Name); rp != nil && rp.SSHIdle {
			continue
		}
		if r.Command.Kind != jobs.CommandArgv {
			continue
		}
		if len(r.Command.Command) == 0 {
			t.Fatalf("role %s: the image's entrypoint is no command to wrap", r.Name)
		}
		argv := append(append([]string(nil), r.Command.Command...), r.Command.Args...)
		r.Command.Command = append([]string{"sh", "-c", script, filepath.Join(dir, r.Name+".XXXXXX")}, argv...)
		r.Command.Args = nil
		wrapped[r.Name] = true
	}
	return wrapped
}

// Read returns the environments dumped in dir, per role.
func Read(t *testing.T, dir string) map[string][]map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00") {
			if n, v, ok := strings.Cut(kv, "="); ok {
				env[n] = v
			}
		}
		role := filepath.Base(f)
		role = role[:strings.LastIndexByte(role, '.')]
		out[role] = append(out[role], env)
	}
	return out
}

// Check compares the environments dumped in dir with the oracle's for
// topo and opts: every task of a wrapped role dumped once (a retried task
// would dump again: the jobs checked succeed in one attempt), each dump is
// exactly one task's oracle environment for the variables the oracle
// gives it, and has none of the variables the oracle gives only other
// tasks. Ranks pair a dump with its task (PET_NODE_RANK, DMLC_TASK_ID,
// ...); tasks whose oracle environments are equal may pair either way.
// workDir is the value of an empty contract.WorkDirVar.
func Check(t *testing.T, job *jobs.Job, topo contract.Topology, opts contract.Options, dir string, wrapped map[string]bool, workDir string) {
	t.Helper()
	all, err := contract.EvalAll(job, topo, opts)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range all {
		for _, v := range e {
			names[v.Name] = true
		}
	}
	dumps := Read(t, dir)
	for _, r := range job.Roles {
		if !wrapped[r.Name] {
			continue
		}
		if len(dumps[r.Name]) != r.Instances {
			t.Errorf("role %s: %d environments dumped, want one per task (%d)", r.Name, len(dumps[r.Name]), r.Instances)
			continue
		}
		var want []map[string]string
		for i := range r.Instances {
			w := all[jobs.TaskRef{Role: r.Name, Index: i}].Map()
			if wd, ok := w[contract.WorkDirVar]; ok && wd == "" {
				w[contract.WorkDirVar] = workDir
			}
			want = append(want, w)
		}
		for _, msg := range pair(want, dumps[r.Name], names) {
			t.Errorf("role %s: %s", r.Name, msg)
		}
	}
}

// pair matches each dump with a distinct task whose oracle environment it
// holds (restricted to the contract's names), and describes each dump
// that has none: its difference from the closest unmatched task's.
func pair(want []map[string]string, got []map[string]string, names map[string]bool) []string {
	var msgs []string
	used := make([]bool, len(want))
	diffs := make([][]string, len(got))
	for j, g := range got {
		seen := map[string]string{}
		for n := range names {
			if v, ok := g[n]; ok {
				seen[n] = v
			}
		}
		for _, w := range want {
			diffs[j] = append(diffs[j], cmp.Diff(w, seen))
		}
	}
	// the dumps with fewest candidates first: ranks make most unique
	order := make([]int, len(got))
	for j := range order {
		order[j] = j
	}
	cands := func(j int) int {
		n := 0
		for _, d := range diffs[j] {
			if d == "" {
				n++
			}
		}
		return n
	}
	sort.SliceStable(order, func(a, b int) bool { return cands(order[a]) < cands(order[b]) })
	for _, j := range order {
		best := -1
		for i, d := range diffs[j] {
			if used[i] {
				continue
			}
			if d == "" {
				best = i
				break
			}
			if best < 0 || len(d) < len(diffs[j][best]) {
				best = i
			}
		}
		if best < 0 {
			msgs = append(msgs, fmt.Sprintf("dump %d: no task left to pair with", j))
			continue
		}
		used[best] = true
		if d := diffs[j][best]; d != "" {
			msgs = append(msgs, fmt.Sprintf("task %d: environment (-oracle +task):\n%s", best, d))
		}
	}
	return msgs
}
