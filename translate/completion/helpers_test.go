package completion

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
)

func ip(n int) *int                  { return &n }
func i64(n int64) *int64             { return &n }
func ref(role string, i int) TaskRef { return TaskRef{Role: role, Index: i} }
func refp(role string, i int) *TaskRef {
	r := ref(role, i)
	return &r
}

// tk is one observed task; seq orders terminal ones.
func tk(role string, i int, s State, exit int, seq int64) Task {
	return Task{TaskRef: ref(role, i), State: s, ExitCode: exit, Seq: seq}
}

func run(role string, i int) Task { return tk(role, i, Running, 0, 0) }

// paiRole is a PAI role with its counters as the readers store them.
func paiRole(name string, n int, minFailed, minSucceeded *int) *jobs.Role {
	return &jobs.Role{Name: name, Instances: n, MinFailed: minFailed, MinSucceeded: minSucceeded}
}

// paiV2 is a protocol-v2 (k8s era) job.
func paiV2(roles ...*jobs.Role) *jobs.Job {
	return &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatPAIv2},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Retry:      jobs.Retry{Fancy: true, GangAllocation: true}, Roles: roles}
}

// paiV1 is a v1 JSON (YARN era) job.
func paiV1(roles ...*jobs.Role) *jobs.Job {
	j := paiV2(roles...)
	j.Source.Format = jobs.FormatPAIv1
	return j
}

// kfRole is a Kubeflow replica type.
func kfRole(rt string, n int, policy string) *jobs.Role {
	return &jobs.Role{Name: rt, ReplicaType: rt, Instances: n, RestartPolicy: policy}
}

func tfJob(roles ...*jobs.Role) *jobs.Job {
	return &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatTFJob},
		Completion: jobs.Completion{Kind: jobs.CompletionTF}, Roles: roles}
}

func ptJob(roles ...*jobs.Role) *jobs.Job {
	return &jobs.Job{Name: "pt", Source: jobs.Source{Format: jobs.FormatPyTorchJob},
		Completion: jobs.Completion{Kind: jobs.CompletionPyTorch}, Roles: roles}
}

func with(j *jobs.Job, f func(*jobs.Job)) *jobs.Job { f(j); return j }

// seedFor is the seed of a randomised test: fixed by default (CI runs are
// reproducible), JOBSHIFT_SEED=N to replay one, JOBSHIFT_SEED=random for a
// new one each run (logged, so a failure can be replayed).
func seedFor(t *testing.T, def uint64) uint64 {
	t.Helper()
	s := os.Getenv("JOBSHIFT_SEED")
	switch s {
	case "":
		return def
	case "random":
		n := uint64(time.Now().UnixNano())
		t.Logf("JOBSHIFT_SEED=%d", n)
		return n
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("JOBSHIFT_SEED=%q: want a number or random", s)
	}
	t.Logf("JOBSHIFT_SEED=%d", n)
	return n
}
