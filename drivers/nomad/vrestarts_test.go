package nomad

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// vcWorkers is a Volcano Job of n workers and one ps, whose workers'
// exit code 3 runs action (RestartPod, RestartTask), maxRetry 3.
func vcWorkers(action string, n int) *jobs.Job {
	three := 3
	v := &jobs.Volcano{MinAvailable: n + 1, MaxRetry: 3, Tasks: []jobs.VolcanoTask{
		{Name: "worker", MinAvailable: n, MaxRetry: 3, Policies: []jobs.VolcanoPolicy{{ExitCode: &three, Action: action}}},
		{Name: "ps", MinAvailable: 1, MaxRetry: 3}}}
	role := func(name string, k int) *jobs.Role {
		return &jobs.Role{Name: name, Instances: k, RestartPolicy: "Never",
			Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"true"}}, Resources: jobs.Resources{CPUMilli: 100, MemoryMiB: 64}}
	}
	return &jobs.Job{Name: "vc", Source: jobs.Source{Format: jobs.FormatVolcano, Path: "job.yaml"},
		Completion: jobs.Completion{Kind: jobs.CompletionVolcano}, Extras: jobs.Extras{Volcano: v},
		Roles: []*jobs.Role{role("worker", n), role("ps", 1)}}
}

// The loop records each policy restart, pod or task as the policy's
// action says (job_controller_actions.go killPods: TargetTypePod,
// TargetTypeTask @v1.16.0-alpha.1): a task that always exits 3 under
// maxRetry 3 restarts twice.
func TestRestartLoopRecordsPolicyRestarts(t *testing.T) {
	for action, kind := range map[string]string{"RestartPod": "pod", "RestartTask": "task"} {
		job := vcRestartPodJob("sh", "-c", "exit 3")
		job.Extras.Volcano.Tasks[0].Policies[0].Action = action
		argv, loop := loopOf(t, job, map[string]string{OptRestartBackoff: "10ms"})
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", loop, restartArg0}, argv[4:]...)...)
		cmd.Env = append(os.Environ(), "NOMAD_TASK_DIR="+dir, "NOMAD_ALLOC_INDEX=0")
		err := cmd.Run()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Errorf("%s: loop ended with %v, want exit status 3", action, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, vrestartsFile))
		recs := parseVRestarts(jobs.TaskRef{Role: "trainer"}, b)
		if len(recs) != 2 {
			t.Fatalf("%s: records %q, want 2", action, b)
		}
		for _, r := range recs {
			if r.Action != action || r.Code != 3 || time.Since(r.At) > time.Minute || r.At.After(time.Now()) {
				t.Errorf("%s: record %+v (line kind %s)", action, r, kind)
			}
		}
	}
}

// Only complete, well-formed lines are records: the last one may be
// being written.
func TestParseVRestarts(t *testing.T) {
	ref := jobs.TaskRef{Role: "worker", Index: 1}
	got := parseVRestarts(ref, []byte("1000 pod 3 0\nnonsense\n2000 job 3 0\n3000 task 5 10000\n4000 pod 3"))
	want := []completion.PolicyRestart{
		{Task: ref, At: time.UnixMilli(1000), Code: 3, Action: completion.ActionRestartPod},
		{Task: ref, At: time.UnixMilli(3000), Code: 5, Action: completion.ActionRestartTask, Wait: 10 * time.Second},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// fakeClients serves the records of the allocations' restart loops (the
// fs API) and takes task restarts, as a Nomad client would.
type fakeClients struct {
	mu       sync.Mutex
	files    map[string]string // by allocation ID
	refuse   bool
	restarts []string
	vars     []string // Variables written (end markers, verdicts)
}

func (f *fakeClients) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch id, ok := strings.CutPrefix(r.URL.Path, "/v1/client/fs/cat/"); {
	case ok && f.refuse:
		http.Error(w, "Permission denied", http.StatusForbidden)
	case ok && r.URL.Query().Get("path") == MainTask+"/local/"+vrestartsFile && f.files[id] != "":
		fmt.Fprint(w, f.files[id])
	case ok:
		http.Error(w, "file does not exist", http.StatusInternalServerError)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/var/"):
		f.vars = append(f.vars, strings.TrimPrefix(r.URL.Path, "/v1/var/"))
		fmt.Fprint(w, "{}")
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/restart"):
		f.restarts = append(f.restarts, strings.Split(r.URL.Path, "/")[4])
		fmt.Fprint(w, "{}")
	default:
		http.NotFound(w, r)
	}
}

// liveWatcher is a watcher of job (attempt 0, retries the meta's) on the
// fake's API, its machine seeing every allocation running.
func liveWatcher(t *testing.T, f *fakeClients, job *jobs.Job, retries int, allocs []*api.AllocationListStub) (*watcher, chan drivers.Event) {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := api.NewClient(&api.Config{Address: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	pol := completion.PolicyOf(job)
	w := &watcher{d: &Driver{}, c: c, id: "vc", pol: pol, version: 1, lr: newLiveRestarts(), m: completion.NewMachine(pol, completion.MachineConfig{Retries: retries})}
	placed, _ := snapshotEvents(observe(pol, allocs, 1, nil), time.Now())
	w.m.ObserveAll(placed)
	return w, make(chan drivers.Event, 16)
}

// running is allocation id of role[index], its main task running since
// started.
func running(id, role string, index int, started time.Time) *api.AllocationListStub {
	return &api.AllocationListStub{ID: id, Name: fmt.Sprintf("vc.%s[%d]", role, index), TaskGroup: groupName(role), JobVersion: 1,
		ClientStatus: "running", TaskStates: map[string]*api.TaskState{MainTask: {State: "running", StartedAt: started}}}
}

// Two workers' restarts in place count in one RetryCount: with maxRetry
// 3, the third restart of the job, whichever task's, fails it
// (state/running.go, restarting.go @v1.16.0-alpha.1); from a seed of 1
// (an earlier RestartJob), the second.
func TestLivePolicyRestartsFailJob(t *testing.T) {
	t0 := time.Now().Add(-time.Minute)
	allocs := []*api.AllocationListStub{running("a0", "worker", 0, t0), running("a1", "worker", 1, t0), running("p0", "ps", 0, t0)}
	ms := func(d time.Duration) int64 { return t0.Add(d).UnixMilli() }
	cases := []struct {
		seed           int
		files          map[string]string
		trigger, alloc string // "" = no verdict
	}{
		{0, map[string]string{"a0": fmt.Sprintf("%d pod 3 0\n", ms(time.Second)), "a1": fmt.Sprintf("%d pod 3 0\n", ms(2*time.Second))}, "", ""},
		{0, map[string]string{"a0": fmt.Sprintf("%d pod 3 0\n%d pod 3 10000\n", ms(time.Second), ms(5*time.Second)), "a1": fmt.Sprintf("%d pod 3 0\n", ms(2*time.Second))}, "worker-0", "a0"},
		{1, map[string]string{"a0": fmt.Sprintf("%d pod 3 0\n", ms(3*time.Second)), "a1": fmt.Sprintf("%d pod 3 0\n", ms(2*time.Second))}, "worker-0", "a0"},
		{1, map[string]string{"a1": fmt.Sprintf("%d pod 3 0\n%d pod 3 10000\n", ms(time.Second), ms(2*time.Second))}, "worker-1", "a1"},
	}
	for i, tc := range cases {
		f := &fakeClients{files: tc.files}
		w, out := liveWatcher(t, f, vcWorkers("RestartPod", 2), tc.seed, allocs)
		w.livePolicyRestarts(t.Context(), out, allocs, time.Now())
		var v *completion.Verdict
		if mv, ok := w.m.Verdict(); ok {
			v = &mv
		}
		// that task's end marker, then the verdict, before the stop: the
		// poststop finishers find it (they see only killed tasks)
		if want := []string{endPath("vc", tc.alloc, 3), ResultPath("vc")}; tc.alloc != "" && !slices.Equal(f.vars, want) {
			t.Errorf("case %d: Variables written %v, want %v", i, f.vars, want)
		}
		n := strings.Count(fmt.Sprint(tc.files), "pod")
		if got := w.m.Retries(); got != tc.seed+n {
			t.Errorf("case %d: RetryCount %d, want %d", i, got, tc.seed+n)
		}
		switch {
		case tc.trigger == "" && v != nil:
			t.Errorf("case %d: verdict %+v, want none below maxRetry", i, v)
		case tc.trigger != "" && (v == nil || v.Phase != completion.PhaseFailed || v.ExitCode != 3 || !strings.Contains(v.Reason, tc.trigger) || !strings.Contains(v.Reason, "maxRetry 3 is reached")):
			t.Errorf("case %d: verdict %+v, want failed with 3 of %s, maxRetry reached", i, v, tc.trigger)
		}
	}
}

// A RestartTask record restarts every other running task of the role that
// runs since before it (killPods TargetTypeTask, job_controller_actions.go
// @v1.16.0-alpha.1), once: not the failed one, not one of another role,
// not one that ended or started after it; a second watcher, which sees
// the restart in Nomad's task state, restarts nothing again.
func TestRestartTaskRestartsSiblings(t *testing.T) {
	at := time.Now().Add(-10 * time.Second)
	ended := running("a3", "worker", 3, at.Add(-time.Minute))
	ended.TaskStates[MainTask].State = "dead"
	allocs := []*api.AllocationListStub{running("a0", "worker", 0, at.Add(-time.Minute)), running("a1", "worker", 1, at.Add(-time.Minute)),
		running("a2", "worker", 2, at.Add(time.Second)), ended, running("a4", "worker", 4, at.Add(-time.Minute)), running("p0", "ps", 0, at.Add(-time.Minute))}
	f := &fakeClients{files: map[string]string{
		"a0": fmt.Sprintf("%d task 3 0\n", at.UnixMilli()),
		// worker-4 restarted itself in place after the action
		"a4": fmt.Sprintf("%d pod 3 0\n", at.Add(time.Second).UnixMilli()),
	}}
	w, out := liveWatcher(t, f, vcWorkers("RestartTask", 5), 0, allocs)
	w.livePolicyRestarts(t.Context(), out, allocs, time.Now())
	w.livePolicyRestarts(t.Context(), out, allocs, time.Now().Add(livePoll))
	if !slices.Equal(f.restarts, []string{"a1"}) {
		t.Fatalf("restarted %v, want [a1] (worker-1 only)", f.restarts)
	}
	allocs[1].TaskStates[MainTask].LastRestart = time.Now()
	w2, out2 := liveWatcher(t, f, vcWorkers("RestartTask", 5), 0, allocs)
	w2.livePolicyRestarts(t.Context(), out2, allocs, time.Now())
	if len(f.restarts) != 1 {
		t.Errorf("a second watcher restarted %v again", f.restarts[1:])
	}
}

// A token without read-fs: said once, nothing read again while the
// attempt runs, the stderr lines count at its end.
func TestLivePolicyRestartsRefused(t *testing.T) {
	t0 := time.Now()
	allocs := []*api.AllocationListStub{running("a0", "worker", 0, t0), running("a1", "worker", 1, t0)}
	w, out := liveWatcher(t, &fakeClients{refuse: true}, vcWorkers("RestartPod", 2), 0, allocs)
	w.livePolicyRestarts(t.Context(), out, allocs, t0)
	w.livePolicyRestarts(t.Context(), out, allocs, t0.Add(time.Minute))
	if !w.lr.refused || len(out) != 1 {
		t.Fatalf("refused %v, %d messages, want one", w.lr.refused, len(out))
	}
	if e := <-out; !strings.Contains(e.Message, "read-fs") {
		t.Errorf("message %q does not name read-fs", e.Message)
	}
	if got := w.wait(t0); got != 5*time.Second {
		t.Errorf("wait %s, want the usual 5s once refused", got)
	}
}
