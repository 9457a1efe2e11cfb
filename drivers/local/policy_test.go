package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// kube builds a Kubeflow job with argv commands.
func kube(format jobs.Format, name string, backoff *int, roles ...*jobs.Role) *jobs.Job {
	kind, contract, port := jobs.CompletionTF, jobs.ContractTF, jobs.Port{Label: "tfjob-port", Count: 1, Implicit: true, Number: 2222}
	if format == jobs.FormatPyTorchJob {
		kind, contract, port = jobs.CompletionPyTorch, jobs.ContractTorch, jobs.Port{Label: "pytorchjob-port", Count: 1, Implicit: true, Number: 23456}
	}
	for _, r := range roles {
		r.Ports = append(r.Ports, port)
	}
	return &jobs.Job{Name: name, Source: jobs.Source{Format: format, Path: name + ".yaml"}, Contracts: []string{contract},
		Completion: jobs.Completion{Kind: kind}, Retry: jobs.Retry{BackoffLimit: backoff}, Roles: roles}
}

func kubeRole(name, rt string, n int, policy string, argv ...string) *jobs.Role {
	return &jobs.Role{Name: name, ReplicaType: rt, Instances: n, RestartPolicy: policy,
		Command: jobs.Command{Kind: jobs.CommandArgv, Command: argv[:1], Args: argv[1:]}}
}

// starts lists the start directories of every task, relative to the run
// directory, sorted: how many times each task ran is read from disk.
func starts(t *testing.T, runDir string) []string {
	t.Helper()
	ds, err := filepath.Glob(filepath.Join(runDir, "*", "attempt-*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ds {
		rel, _ := filepath.Rel(runDir, d)
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

func TestPAIWorkerFailureFailsJob(t *testing.T) {
	job := paiV1("fail", 0,
		roleDef{name: "ps", n: 1, cmd: "sleep 300", minF: intp(1)},
		roleDef{name: "worker", n: 2, cmd: `if [ "$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX" = 1 ]; then exit 3; fi; sleep 300`, minF: intp(1), minS: intp(2)})
	res, dir, evs := runJob(t, job, Options{})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 3 || res.Attempts != 1 {
		t.Errorf("result = %+v, want failed, exit code 3, 1 attempt", res)
	}
	want := map[string]completion.State{"ps-0": completion.Stopped, "worker-0": completion.Stopped, "worker-1": completion.Failed}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ps-0/attempt-1", "worker-0/attempt-1", "worker-1/attempt-1"}, starts(t, dir)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
}

// A worker failure below minFailed does not fail the job: the job
// succeeds when everything ended ("all done ⇒ succeeded").
func TestPAIFailureBelowMinFailed(t *testing.T) {
	job := paiV1("tolerant", 0,
		roleDef{name: "worker", n: 2, cmd: `exit $PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX`, minF: intp(2), minS: nil})
	res, _, _ := runJob(t, job, Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v, want succeeded (1 failure < minFailed 2, all tasks done)", res)
	}
}

func TestPAIJobRetries(t *testing.T) {
	for name, tc := range map[string]struct {
		retry    int
		exit     string
		attempts int
	}{
		// exit 1 is reported as 255, "unknown": retried jobRetryCount times.
		"unknown code, 2 retries": {retry: 2, exit: "1", attempts: 3},
		"no retries":              {retry: 0, exit: "1", attempts: 1},
		// 132 (SIGILL) is permanent: never retried.
		"permanent code": {retry: 2, exit: "132", attempts: 1},
	} {
		t.Run(name, func(t *testing.T) {
			job := paiV1("retry", tc.retry, roleDef{name: "worker", n: 1, cmd: "exit " + tc.exit, minF: intp(1), minS: intp(1)})
			job.Source.Format = jobs.FormatPAIv2
			job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: "exit " + tc.exit}
			res, dir, _ := runJob(t, job, Options{})
			if res.Phase != completion.PhaseFailed || res.Attempts != tc.attempts {
				t.Errorf("result = %+v, want failed after %d attempts", res, tc.attempts)
			}
			var want []string
			for a := range tc.attempts {
				want = append(want, "worker-0/attempt-"+string(rune('1'+a)))
			}
			if diff := cmp.Diff(want, starts(t, dir)); diff != "" {
				t.Errorf("starts (-want +got):\n%s", diff)
			}
		})
	}
}

// PAI v2 runs commands under errexit/nounset/pipefail.
func TestPAIv2Strict(t *testing.T) {
	job := paiV1("strict", 0, roleDef{name: "worker", n: 1, minF: intp(1), minS: intp(1)})
	job.Source.Format = jobs.FormatPAIv2
	job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: "echo $NOT_SET_ANYWHERE_42\necho reached"}
	out := &syncBuf{}
	res, _, _ := runJob(t, job, Options{Output: out})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 1 {
		t.Errorf("result = %+v, want failed with 1 (nounset)", res)
	}
	if !strings.Contains(out.String(), "[worker-0] user.sh: line 2: NOT_SET_ANYWHERE_42: unbound variable") ||
		strings.Contains(out.String(), "reached") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestTFJobWorkerFailure(t *testing.T) {
	for name, tc := range map[string]struct {
		policy  string
		backoff *int
		phase   completion.Phase
		exit    int
		starts  []string
	}{
		"Never fails at once": {policy: "Never", phase: completion.PhaseFailed, exit: 1,
			starts: []string{"ps-0/attempt-1", "worker-0/attempt-1", "worker-1/attempt-1"}},
		// OnFailure restarts in place; backoffLimit 3 allows 2 restarts.
		"OnFailure until backoffLimit": {policy: "OnFailure", backoff: intp(3), phase: completion.PhaseFailed, exit: 1,
			starts: []string{"ps-0/attempt-1", "worker-0/attempt-1", "worker-1/attempt-1", "worker-1/attempt-1-restart-1", "worker-1/attempt-1-restart-2"}},
	} {
		t.Run(name, func(t *testing.T) {
			job := kube(jobs.FormatTFJob, "tf", tc.backoff,
				kubeRole("ps", "ps", 1, tc.policy, "sleep", "300"),
				// worker 1 fails; its index is in TF_CONFIG.
				kubeRole("worker", "worker", 2, tc.policy, "sh", "-c", `case "$TF_CONFIG" in *'"index":1}'*) exit 1;; esac; sleep 300`))
			res, dir, _ := runJob(t, job, Options{})
			if res.Phase != tc.phase || res.ExitCode != tc.exit {
				t.Errorf("result = %+v, want %s with %d", res, tc.phase, tc.exit)
			}
			if diff := cmp.Diff(tc.starts, starts(t, dir)); diff != "" {
				t.Errorf("starts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChiefSuccessEndsTFJob(t *testing.T) {
	job := kube(jobs.FormatTFJob, "tfok", nil,
		kubeRole("chief", "chief", 1, "Never", "true"),
		kubeRole("ps", "ps", 1, "Never", "sleep", "300"),
		kubeRole("worker", "worker", 1, "Never", "sleep", "300"))
	res, _, evs := runJob(t, job, Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v", res)
	}
	want := map[string]completion.State{"chief-0": completion.Succeeded, "ps-0": completion.Stopped, "worker-0": completion.Stopped}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}
}

func TestNoEntrypoint(t *testing.T) {
	job := kube(jobs.FormatTFJob, "noep", nil, &jobs.Role{Name: "worker", Instances: 1, Image: "tensorflow/tensorflow",
		Command: jobs.Command{Kind: jobs.CommandArgv, Args: []string{"--x"}, Pos: jobs.Pos{File: "noep.yaml", Line: 7, Col: 9}}})
	d, _ := New(Options{RunDir: t.TempDir()})
	_, err := d.Submit(context.Background(), &translate.Plan{Job: job})
	if err == nil || !strings.Contains(err.Error(), "noep.yaml:7:9") || !strings.Contains(err.Error(), "ENTRYPOINT") {
		t.Errorf("Submit error = %v, want the position and the entrypoint explanation", err)
	}
}

func TestDeadline(t *testing.T) {
	job := kube(jobs.FormatTFJob, "slow", nil, kubeRole("worker", "worker", 2, "Never", "sleep", "300"))
	secs := int64(1)
	job.Retry.ActiveDeadlineSeconds = &secs
	res, _, _ := runJob(t, job, Options{})
	if res.Phase != completion.PhaseFailed || !strings.Contains(res.Reason, "DeadlineExceeded") {
		t.Errorf("result = %+v, want failed by the deadline", res)
	}
}

// Stop ends a job whose task ignores SIGTERM: SIGKILL after the grace.
func TestStopKillsAfterGrace(t *testing.T) {
	job := paiV1("stop", 0, roleDef{name: "worker", n: 2, cmd: `trap "" TERM; echo ready; sleep 300 & wait; sleep 300`, minF: intp(1)})
	d, _ := New(Options{RunDir: filepath.Join(t.TempDir(), "run"), Grace: 300 * time.Millisecond})
	ctx := context.Background()
	h, err := d.Submit(ctx, &translate.Plan{Job: job, User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until both tasks ignore SIGTERM, then stop.
	for range 1000 {
		b0, _ := os.ReadFile(filepath.Join(h.ID, "worker-0", "attempt-1", "stdout"))
		b1, _ := os.ReadFile(filepath.Join(h.ID, "worker-1", "attempt-1", "stdout"))
		if strings.Contains(string(b0), "ready") && strings.Contains(string(b1), "ready") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.Stop(ctx, h); err != nil {
		t.Fatal(err)
	}
	res, _ := d.Wait(ctx, h)
	if res.Phase != completion.PhaseStopped || res.ExitCode != 143 {
		t.Errorf("result = %+v, want stopped with exit 143 (as on Nomad and Slurm)", res)
	}
	assertNothingLeft(t, h.ID)
	if b, _ := os.ReadFile(filepath.Join(h.ID, "worker-0", "attempt-1", "exit")); strings.TrimSpace(string(b)) != "137" {
		t.Errorf("worker-0 exit = %q, want 137 (SIGKILL after the grace period)", b)
	}
}

// Without gang allocation PAI retries a failed task alone, taskRetryCount
// times (exit 1 is reported as 255, "unknown": counted).
func TestPAITaskRetry(t *testing.T) {
	job := paiV1("taskretry", 0, roleDef{name: "worker", n: 2, cmd: `[ "$PAI_TASK_INDEX" = 1 ] && exit 1; true`, minF: intp(1), minS: intp(2)})
	job.Source.Format = jobs.FormatPAIv2
	job.Retry.GangAllocation = false
	job.Roles[0].TaskRetryCount = 2
	job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: `if [ "$PAI_TASK_INDEX" = 1 ]; then exit 1; fi`}
	res, dir, _ := runJob(t, job, Options{})
	if res.Phase != completion.PhaseFailed || res.Attempts != 1 {
		t.Errorf("result = %+v, want failed in 1 attempt", res)
	}
	want := []string{"worker-0/attempt-1", "worker-1/attempt-1", "worker-1/attempt-1-restart-1", "worker-1/attempt-1-restart-2"}
	if diff := cmp.Diff(want, starts(t, dir)); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
}

func TestLogs(t *testing.T) {
	job := paiV1("logs", 0, roleDef{name: "worker", n: 1, cmd: "echo out; echo err >&2", minF: intp(1)})
	d, err := New(Options{RunDir: filepath.Join(t.TempDir(), "run")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := d.Submit(ctx, planOf(job))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Wait(ctx, h); err != nil {
		t.Fatal(err)
	}
	read := func(o drivers.LogOptions) string {
		rc, err := d.Logs(ctx, h, o)
		if err != nil {
			t.Fatalf("Logs(%+v): %v", o, err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	ref := jobs.TaskRef{Role: "worker", Index: 0}
	got := map[string]string{
		"stdout": read(drivers.LogOptions{Task: &ref}),
		"stderr": read(drivers.LogOptions{Task: &ref, Stderr: true}),
	}
	if diff := cmp.Diff(map[string]string{"stdout": "out\n", "stderr": "err\n"}, got); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
	if all := read(drivers.LogOptions{}); !strings.Contains(all, "[worker-0] out\n") || !strings.Contains(all, "[worker-0] err\n") {
		t.Errorf("job log = %q", all)
	}
	// following a run that has ended prints what it wrote, and ends
	if followed, whole := read(drivers.LogOptions{Follow: true}), read(drivers.LogOptions{}); followed != whole {
		t.Errorf("Logs -follow of an ended run = %q, want %q", followed, whole)
	}
	other := jobs.TaskRef{Role: "nope", Index: 0}
	if _, err := d.Logs(ctx, h, drivers.LogOptions{Task: &other}); !errors.Is(err, drivers.ErrNotFound) {
		t.Errorf("Logs(unknown task) error = %v, want ErrNotFound", err)
	}
}

// corpus is /work/shared/corpus seen from the repository root.
func corpus(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "corpus", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	return p
}

// LeinaoPAI tasks all bind 10001-10003 inside their container; as local
// processes on one address that cannot work, and the error says so.
func TestLeinaoRefused(t *testing.T) {
	plan := loadPlan(t, corpus(t, "pai-v1/feng257-LeinaoPAI__example-tensorflow-distributed-distributed_job.json"))
	d, _ := New(Options{RunDir: filepath.Join(t.TempDir(), "run")})
	_, err := d.Submit(context.Background(), plan)
	if !errors.Is(err, ErrLeinaoLocal) || !strings.Contains(err.Error(), "10001") {
		t.Errorf("Submit error = %v, want ErrLeinaoLocal", err)
	}
	if _, err := d.Render(context.Background(), plan); !errors.Is(err, ErrLeinaoLocal) {
		t.Errorf("Render error = %v, want ErrLeinaoLocal", err)
	}
}

// A program that does not exist fails its task like a shell's "command not
// found" (127), with the reason in the task's stderr file.
func TestMissingProgram(t *testing.T) {
	job := kube(jobs.FormatTFJob, "missing", nil,
		kubeRole("ps", "ps", 1, "Never", "sleep", "300"),
		kubeRole("worker", "worker", 1, "Never", "no-such-program-jobshift"))
	res, dir, _ := runJob(t, job, Options{})
	if res.Phase != completion.PhaseFailed || res.ExitCode != exitStartFailed {
		t.Errorf("result = %+v, want failed with %d", res, exitStartFailed)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "worker-0", "attempt-1", "stderr"))
	if !strings.Contains(string(b), "cannot start task worker-0") {
		t.Errorf("stderr = %q", b)
	}
}

// A LeinaoPAI job of one task is alone on this machine: it runs in the
// host's network with PAI_PORT_MAP_1000x = 1000x and PAI_PORT_LIST_<r>_0 =
// 127.0.0.1,10001,10002,10003, binds the three ports and reaches itself
// through them (integration/testdata/leinao_peer.py).
func TestLeinaoOneTaskOnHostNetwork(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 is needed: %v", err)
		}
		t.Skipf("python3 is needed: %v", err)
	}
	prog, err := filepath.Abs(filepath.Join("..", "..", "integration", "testdata", "leinao_peer.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "leinao.json")
	src := fmt.Sprintf(`{"jobName": "leinao-one", "image": "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1", "taskRoles": [{"name": "worker",
  "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "minSucceededTaskCount": 1, "minFailedTaskCount": 1,
  "command": "echo PAI_PORT_LIST_worker_0=$PAI_PORT_LIST_worker_0 && python3 %s"}]}`, prog)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := loadPlan(t, path)
	if plan.Job.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", plan.Job.Source.Dialect)
	}
	out := &syncBuf{}
	res, _, _ := runPlan(t, plan, Options{Output: out})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded\noutput:\n%s", res, out.String())
	}
	for _, want := range []string{"[worker-0] PAI_PORT_LIST_worker_0=127.0.0.1,10001,10002,10003\n",
		"mapped to [10001, 10002, 10003] user alice", "[worker-0] worker-0 confirmed by all 1 tasks on 3 ports"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
