package contract_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
	"github.com/jobshift/jobshift/translate/contract/contracttest"
)

// TestBoundEqualsUnfolded: on random jobs of every contract and random
// topologies, the compiled and folded environment of every task and
// process equals the plain evaluation of the role's program; EvalAll
// agrees; Shared plus Own is the whole environment, and Shared holds only
// variables with one value in every task.
func TestBoundEqualsUnfolded(t *testing.T) {
	for n := range 70 {
		c := contracttest.Random(11, n)
		t.Run(c.Name, func(t *testing.T) {
			cj, err := contract.Compile(c.Job, c.Opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := cj.Bind(c.Topo)
			if err != nil {
				t.Fatal(err)
			}
			all, err := contract.EvalAll(c.Job, c.Topo, c.Opts)
			if err != nil {
				t.Fatal(err)
			}
			shared, err := b.Shared()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range c.Job.Roles {
				for i := range r.Instances {
					ref := jobs.TaskRef{Role: r.Name, Index: i}
					for _, proc := range cj.Processes() {
						o := c.Opts
						o.Process = proc
						want, err := contract.EvalUnfolded(c.Job, c.Topo, ref, o)
						if err != nil {
							t.Fatal(err)
						}
						got, err := b.Env(ref, proc)
						if err != nil {
							t.Fatal(err)
						}
						if d := cmp.Diff(want, got); d != "" {
							t.Fatalf("%s-%d %q: Bound.Env (-unfolded +bound):\n%s", r.Name, i, proc, d)
						}
						if proc == contract.ProcessMain {
							if d := cmp.Diff(want, all[ref]); d != "" {
								t.Fatalf("%s-%d: EvalAll (-unfolded +EvalAll):\n%s", r.Name, i, d)
							}
						}
						own, err := b.Own(ref, proc)
						if err != nil {
							t.Fatal(err)
						}
						m := own.Map()
						for _, v := range shared {
							if _, dup := m[v.Name]; dup {
								t.Fatalf("%s-%d: %s both shared and own", r.Name, i, v.Name)
							}
							m[v.Name] = v.Value
						}
						if d := cmp.Diff(want.Map(), m); d != "" {
							t.Fatalf("%s-%d %q: Shared+Own (-unfolded +shared/own):\n%s", r.Name, i, proc, d)
						}
					}
				}
			}
		})
	}
}

// TestCompiledErrors: a job that fails its check fails Compile with the
// same diagnostics as Check; a topology that does not fit fails Bind; a
// process the job does not have and an unknown task fail Env.
func TestCompiledErrors(t *testing.T) {
	c := contracttest.Random(3, 0) // a pai job
	bad := *c.Job
	bad.Roles = nil
	if _, err := contract.Compile(&bad, c.Opts); !errors.Is(err, contract.ErrJob) {
		t.Errorf("Compile of a job without roles: %v, want an ErrJob", err)
	}
	cj, err := contract.Compile(c.Job, c.Opts)
	if err != nil {
		t.Fatal(err)
	}
	short := contract.Topology{Roles: c.Topo.Roles[:len(c.Topo.Roles)-1]}
	if _, err := cj.Bind(short); err == nil {
		t.Error("Bind of a topology missing a role: no error")
	}
	b, err := cj.Bind(c.Topo)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Job.Roles[0]
	if _, err := b.Env(jobs.TaskRef{Role: r.Name, Index: r.Instances}, contract.ProcessMain); err == nil {
		t.Error("Env of an index past the role: no error")
	}
	if _, err := b.Env(jobs.TaskRef{Role: r.Name}, contract.ProcessPS); err == nil {
		t.Error("Env of a PS process in a job without one: no error")
	}
}
