package local

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

func intp(n int) *int { return &n }

// testTimeout bounds one job run in tests (a hang is a failure, not a
// timing assertion: every job here ends in seconds).
var testTimeout = 3 * time.Minute

// syncBuf is a goroutine-safe buffer for task output.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// paiV1 builds a v1 job: roles name → (instances, command, minFailed, minSucceeded).
type roleDef struct {
	name       string
	n          int
	cmd        string
	minF, minS *int
}

func paiV1(name string, retry int, roles ...roleDef) *jobs.Job {
	j := &jobs.Job{Name: name, Source: jobs.Source{Format: jobs.FormatPAIv1, Path: name + ".json"},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Retry:      jobs.Retry{JobRetryCount: retry, Fancy: retry != -2, GangAllocation: true},
		Contracts:  []string{jobs.ContractPAI, jobs.ContractPAIYarn}}
	for _, r := range roles {
		j.Roles = append(j.Roles, &jobs.Role{Name: r.name, Instances: r.n,
			Command:   jobs.Command{Kind: jobs.CommandEval, Script: r.cmd},
			Ports:     []jobs.Port{{Label: "http", Count: 1, Implicit: true}, {Label: "ssh", Count: 1, Implicit: true}},
			MinFailed: r.minF, MinSucceeded: r.minS})
	}
	return j
}

func planOf(job *jobs.Job) *translate.Plan {
	return &translate.Plan{Job: job, Contracts: job.Contracts, User: "alice"}
}

// runJob runs job to the end with the local driver and returns the result
// and the run directory.
func runJob(t *testing.T, job *jobs.Job, opts Options) (*drivers.Result, string, []drivers.Event) {
	t.Helper()
	return runPlan(t, planOf(job), opts)
}

// runPlan is runJob for a plan (contracts chosen like the CLI's -contract).
func runPlan(t *testing.T, plan *translate.Plan, opts Options) (*drivers.Result, string, []drivers.Event) {
	t.Helper()
	if opts.RunDir == "" {
		opts.RunDir = filepath.Join(t.TempDir(), "run")
	}
	if opts.Grace == 0 {
		opts.Grace = 5 * time.Second
	}
	if opts.RestartBackoff == (completion.Backoff{}) {
		// The kubelet's 10 s would slow every restart test; the
		// backoff tests set their own.
		opts.RestartBackoff = completion.Backoff{Initial: 20 * time.Millisecond, Max: 600 * time.Millisecond}
	}
	d, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	evc, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	var evs []drivers.Event
	for e := range evc {
		evs = append(evs, e)
	}
	res, err := d.Wait(ctx, h)
	if err != nil {
		for _, e := range evs {
			t.Logf("event: %+v", e)
		}
		_ = d.Stop(context.Background(), h)
		t.Fatalf("Wait: %v", err)
	}
	assertNothingLeft(t, h.ID)
	return res, h.ID, evs
}

// assertNothingLeft checks that no process of any recorded task group
// (UAI parameter servers included) is alive (kill(-pgid, 0) fails with ESRCH once the group is empty).
func assertNothingLeft(t *testing.T, runDir string) {
	t.Helper()
	pids, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-*", "pid"))
	ps, _ := filepath.Glob(filepath.Join(runDir, "*", "attempt-*", "ps", "pid"))
	pids = append(pids, ps...)
	if len(pids) == 0 {
		t.Errorf("no pid files under %s", runDir)
	}
	for _, f := range pids {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if live := groupMembers(pgid); len(live) > 0 {
			t.Errorf("%s: process group %d still has processes %v", f, pgid, live)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
}

// taskStates returns the last state of every task in the final attempt.
func taskStates(evs []drivers.Event) map[string]completion.State {
	last := 0
	for _, e := range evs {
		last = max(last, e.Attempt)
	}
	out := map[string]completion.State{}
	for _, e := range evs {
		if e.Task != nil && e.Attempt == last {
			out[refString(*e.Task)] = e.State
		}
	}
	return out
}

func TestPSStoppedWhenWorkersSucceed(t *testing.T) {
	job := paiV1("psw", 0,
		roleDef{name: "ps", n: 2, cmd: "sleep 300", minF: intp(1)},
		roleDef{name: "worker", n: 2, cmd: `echo "worker $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX sees $PAI_TASK_ROLE_ps_HOST_LIST"`, minF: intp(1), minS: intp(2)})
	out := &syncBuf{}
	res, _, evs := runJob(t, job, Options{Output: out})
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Errorf("result = %+v, want succeeded 0", res)
	}
	want := map[string]completion.State{"ps-0": completion.Stopped, "ps-1": completion.Stopped,
		"worker-0": completion.Succeeded, "worker-1": completion.Succeeded}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), "[worker-1] worker 1 sees 127.0.0.1:") {
		t.Errorf("output lacks the prefixed worker line:\n%s", out.String())
	}
}
