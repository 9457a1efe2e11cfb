package nomad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
)

// helper builds the jobshift binary the finisher tasks run.
func helper(t *testing.T) string {
	t.Helper()
	return drivertest.Jobshift(t)
}

// TestFinisherWithoutJobshiftProcess: submitted with plain `nomad job run`
// and nothing of jobshift running, the job still ends by its rule: the
// poststop finisher records the verdict, stops the PS and deletes the
// job's secrets Variable (written here as Submit would have).
func TestFinisherWithoutJobshiftProcess(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	cases := map[string]struct {
		fail      bool
		wantPhase string
		wantCode  string
	}{
		"workers-succeed": {false, "succeeded", "0"},
		"worker-fails":    {true, "failed", "3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site())
			if tc.fail {
				w := p.Job.Role("worker")
				w.Command = jobs.Command{Kind: jobs.CommandEval, Script: `if [ "$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX" = 1 ]; then sleep 1; exit 3; fi; exec sleep 3600`}
			}
			p.Options["id"] = fmt.Sprintf("fin-%d", time.Now().UnixNano()%1e9)
			p.Options[nomad.OptWorkDir] = agent.Repo()
			p.Options[nomad.OptHelper] = helper(t)
			d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
			art, err := d.Render(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(t.TempDir(), "job.nomad.hcl")
			if err := os.WriteFile(f, art.Files[0].Data, 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(agent.Binary(), "job", "run", "-detach", f).CombinedOutput(); err != nil {
				t.Fatalf("nomad job run: %v\n%s", err, out)
			}
			id := p.Options["id"]
			defer c.Jobs().Deregister(id, true, nil)
			secret := &api.Variable{Path: nomad.VariablePath(id), Items: api.VariableItems{"token": "s3cr3t"}}
			if _, _, err := c.Variables().Create(secret, nil); err != nil {
				t.Fatal(err)
			}
			defer c.Variables().Delete(secret.Path, nil)
			v := waitVerdict(t, c, id, 2*time.Minute)
			if v.Items["phase"] != tc.wantPhase || v.Items["exitCode"] != tc.wantCode {
				t.Fatalf("verdict %v, want %s with exit code %s", v.Items, tc.wantPhase, tc.wantCode)
			}
			waitAllEnded(t, c, id)
			drivertest.NoNomadVariable(t, c, nomad.VariablePath(id))
			statusTakesVerdict(t, id, v, tc.wantPhase, nomad.FinisherTask)
		})
	}
}

// TestInTaskFinisherAfterRunDied: a job `jobshift run` submitted (the
// topology snapshot, the helper set) judges itself from inside its main
// tasks (no poststop task), so when the run dies after the start the job
// still ends by its rule. Both workers end together, each judging before
// the server shows the other's end: only the end markers let one of them
// see both (drivers/nomad ends.go). The tasks' own exit codes stand.
func TestInTaskFinisherAfterRunDied(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	cases := map[string]struct {
		worker1   string // worker 1's exit code; worker 0 exits 0
		wantPhase string
		wantCode  string
	}{
		"workers-succeed-together": {"0", "succeeded", "0"},
		"worker-fails":             {"3", "failed", "3"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "pai-v1-ps-worker.json"), site())
			p.Job.Role("ps").Command = jobs.Command{Kind: jobs.CommandEval, Script: `exec sleep 3600`}
			// both end at the same second of the clock, after the run died
			p.Job.Role("worker").Command = jobs.Command{Kind: jobs.CommandEval, Script: `now=$(date +%s); sleep $(((now / 5 + 2) * 5 - now)); ` +
				`[ "$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX" = 1 ] && exit ` + tc.worker1 + `; exit 0`}
			id := fmt.Sprintf("fin-in-%d", time.Now().UnixNano()%1e9)
			p.Options["id"] = id
			p.Options[nomad.OptWorkDir] = agent.Repo()
			p.Options[nomad.OptHelper] = helper(t)
			d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
			p.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
			h, err := d.Submit(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Jobs().Deregister(id, true, nil)
			defer deleteVariables(t, c, nomad.ResultPath(id))
			job, _, err := c.Jobs().Info(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range job.TaskGroups {
				for _, task := range g.Tasks {
					if task.Lifecycle != nil {
						t.Fatalf("group %s has the lifecycle task %s: the finisher should run in the main task", *g.Name, task.Name)
					}
				}
			}
			// `jobshift run`: its watcher writes the snapshot; it dies
			// once every task runs
			ctx, die := context.WithCancel(context.Background())
			ev, err := d.Watch(ctx, h)
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				for range ev {
				}
			}()
			waitMainRunning(t, c, id, 4)
			die()
			v := waitVerdict(t, c, id, 2*time.Minute)
			if v.Items["phase"] != tc.wantPhase || v.Items["exitCode"] != tc.wantCode {
				t.Fatalf("verdict %v, want %s with exit code %s", v.Items, tc.wantPhase, tc.wantCode)
			}
			waitAllEnded(t, c, id)
			statusTakesVerdict(t, id, v, tc.wantPhase, nomad.MainTask)
			// the worker whose finisher judged last was killed by its own
			// verdict's stop, after its command ended: status shows that
			// end (its marker), not a stop
			want := map[string]string{"worker-1": tc.wantPhase + " " + tc.worker1}
			if tc.worker1 == "0" {
				want["worker-0"] = "succeeded 0"
			}
			for task, st := range statusTasks(t, id) {
				if w, ok := want[task]; ok && fmt.Sprintf("%s %d", st.State, st.ExitCode) != w {
					t.Errorf("status: %s %s (exit code %d) %q, want %s", task, st.State, st.ExitCode, st.Message, w)
				}
			}
			allocs, _, err := c.Jobs().Allocations(id, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range allocs {
				ts := a.TaskStates[nomad.MainTask]
				if a.TaskGroup != "worker" || ts == nil {
					continue
				}
				want := "0"
				if strings.HasSuffix(a.Name, "[1]") {
					want = tc.worker1
				}
				if got := exitOf(ts); got != want && !(tc.worker1 != "0" && want == "0") {
					t.Errorf("%s ended with %s, want its command's %s", a.Name, got, want)
				}
			}
		})
	}
}

// waitMainRunning waits until n main tasks of job id run.
func waitMainRunning(t *testing.T, c *api.Client, id string, n int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		allocs, _, _ := c.Jobs().Allocations(id, false, nil)
		running := 0
		for _, a := range allocs {
			if ts := a.TaskStates[nomad.MainTask]; ts != nil && ts.State == "running" {
				running++
			}
		}
		if running == n {
			return
		}
	}
	t.Fatalf("job %s: %d main tasks not running within 2 minutes", id, n)
}

// exitOf is a dead task's last exit code, "" if it has none.
func exitOf(ts *api.TaskState) string {
	for i := len(ts.Events) - 1; i >= 0; i-- {
		if e := ts.Events[i]; e.Type == api.TaskTerminated {
			return fmt.Sprint(e.ExitCode)
		}
	}
	return ""
}

// deleteVariables deletes the Variable at path and every one under it.
func deleteVariables(t *testing.T, c *api.Client, path string) {
	list, _, _ := c.Variables().PrefixList(path, nil)
	for _, v := range list {
		_, _ = c.Variables().Delete(v.Path, nil)
	}
}

// statusTasks is status's (the driver's Inspect) tasks of job id, by name.
func statusTasks(t *testing.T, id string) map[string]drivers.TaskStatus {
	t.Helper()
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.(drivers.Inspector).Inspect(context.Background(), drivers.Handle{Driver: nomad.TargetHCL, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]drivers.TaskStatus{}
	for _, ts := range st.Tasks {
		out[fmt.Sprintf("%s-%d", ts.Role, ts.Index)] = ts
	}
	return out
}

// statusTakesVerdict: the finisher's verdict names its allocation and its
// task, and status (the driver's Inspect) takes it as the job's.
func statusTakesVerdict(t *testing.T, id string, v *api.Variable, phase, task string) {
	t.Helper()
	if v.Items["alloc"] == "" || v.Items["task"] != task {
		t.Errorf("the verdict names allocation %q task %q, want one of the job's and %q", v.Items["alloc"], v.Items["task"], task)
	}
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.(drivers.Inspector).Inspect(context.Background(), drivers.Handle{Driver: nomad.TargetHCL, ID: id})
	if err != nil || string(st.Phase) != phase {
		t.Errorf("status of %s: %v, %+v; want the finisher's verdict %s", id, err, st, phase)
	}
}
