package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// listPorts hands out a fixed list of ports in order; every call of the
// Options.ports func starts over, so Submit's check and the attempt see the
// same topology and the test knows it.
type listPorts struct {
	ports []int
	next  int
}

func (l *listPorts) Free(n int) ([]int, error) {
	if l.next+n > len(l.ports) {
		return nil, fmt.Errorf("listPorts: %d ports asked, %d left", n, len(l.ports)-l.next)
	}
	out := l.ports[l.next : l.next+n]
	l.next += n
	return out, nil
}
func (l *listPorts) Release() {}

// freePorts asks the kernel for n distinct free ports on loopback.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out
}

// uaiPlan loads the 3-node UAI probe job with `-contract =uai`.
func uaiPlan(t *testing.T) *translate.Plan {
	t.Helper()
	path := filepath.Join("testdata", "uai", "uai-probe.json")
	job, diags := load.Load(path, jobs.ReadOptions{Path: filepath.Base(path)})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	plan, diags := translate.Build(job, nil, []string{"=uai"}, "alice")
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	return plan
}

// tfConfigOf reads the TF_CONFIG a process printed (uai_probe.py's first
// line) from its stdout file.
func tfConfigOf(t *testing.T, stdout string) string {
	t.Helper()
	b, err := os.ReadFile(stdout)
	if err != nil {
		t.Errorf("%v", err)
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TF_CONFIG="); ok {
			return v
		}
	}
	t.Errorf("%s has no TF_CONFIG line:\n%s", stdout, b)
	return ""
}

// TestUAIRealProcesses runs a 3-node UAI Train job for real: every node runs
// a parameter server and a training process from the same command; the
// training processes reach every ps and each other and exit 0; the job
// succeeds, every ps is stopped (not failed), nothing is left, and each
// process saw the TF_CONFIG of the oracle and of the seed.
func TestUAIRealProcesses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 is needed: %v", err)
		}
		t.Skipf("python3 is needed: %v", err)
	}
	plan := uaiPlan(t)
	// The topology is known: every task takes its ports from the list in
	// contract.PortLabels order (PAI v1 adds implicit http and ssh).
	opts := contract.Options{User: "alice", Contracts: []string{jobs.ContractUAI}}
	labels := contract.PortLabels(plan.Job, 0, opts)
	perTask := 0
	for _, l := range labels {
		perTask += l.Count
	}
	ports := freePorts(t, 3*perTask)
	dir, err := filepath.Abs(filepath.Join("testdata", "uai"))
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuf{}
	res, runDir, evs := runPlan(t, plan, Options{Dir: dir, Output: out,
		ports: func(string) portSource { return &listPorts{ports: ports} }})

	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Errorf("result = %+v, want succeeded 0\noutput:\n%s", res, out.String())
	}
	wantStates := map[string]completion.State{"uai-0": completion.Succeeded, "uai-1": completion.Succeeded, "uai-2": completion.Succeeded}
	if diff := cmp.Diff(wantStates, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}

	// Every ps was stopped by jobshift (SIGTERM: 143), none ended itself.
	gotPS := map[string]string{}
	for _, e := range evs {
		for i := range 3 {
			name := fmt.Sprintf("uai-%d/ps", i)
			if rest, ok := strings.CutPrefix(e.Message, name+" "); ok && !strings.HasPrefix(rest, "started") {
				gotPS[name] = rest
			}
		}
	}
	wantPS := map[string]string{"uai-0/ps": "stopped (exit 143)", "uai-1/ps": "stopped (exit 143)", "uai-2/ps": "stopped (exit 143)"}
	if diff := cmp.Diff(wantPS, gotPS); diff != "" {
		t.Errorf("ps ends (-want +got):\n%s", diff)
	}
	for i := range 3 {
		b, _ := os.ReadFile(filepath.Join(psDir(filepath.Join(runDir, fmt.Sprintf("uai-%d", i)), 0), "exit"))
		if strings.TrimSpace(string(b)) != "143" {
			t.Errorf("uai-%d/ps exit file = %q, want 143", i, b)
		}
	}
	if left, err := Leftovers(runDir); err != nil || len(left) > 0 {
		t.Errorf("Leftovers = %v, %v; want none", left, err)
	}

	// TF_CONFIG: what each process printed, the oracle on the actual
	// topology (ports handed out in task order: port-ps, port-worker), and
	// the seed's layout written out by hand.
	var topo contract.Topology
	rt := contract.RoleTopology{Name: "uai"}
	for i, next := 0, 0; i < 3; i++ {
		tt := contract.TaskTopology{Addr: loopback, Ports: map[string][]int{}}
		for _, l := range labels {
			tt.Ports[l.Label] = append(tt.Ports[l.Label], ports[next:next+l.Count]...)
			next += l.Count
		}
		rt.Tasks = append(rt.Tasks, tt)
	}
	topo.Roles = append(topo.Roles, rt)
	// port-ps and port-worker of node i: the two ports of label uai.
	pps := func(i int) string { return fmt.Sprintf(`"127.0.0.1:%d"`, rt.Tasks[i].Ports["uai"][0]) }
	pwk := func(i int) string { return fmt.Sprintf(`"127.0.0.1:%d"`, rt.Tasks[i].Ports["uai"][1]) }
	cluster := fmt.Sprintf(`{"cluster":{"master":[%s],"ps":[%s,%s,%s],"worker":[%s,%s]},"task":`,
		pwk(0), pps(0), pps(1), pps(2), pwk(1), pwk(2))
	got, oracle, seed := map[string]string{}, map[string]string{}, map[string]string{}
	for i := range 3 {
		ref := jobs.TaskRef{Role: "uai", Index: i}
		taskDir := filepath.Join(runDir, refString(ref))
		for _, proc := range []string{contract.ProcessMain, contract.ProcessPS} {
			name, stdout := refString(ref), filepath.Join(startDir(taskDir, 0, 0), "stdout")
			if proc == contract.ProcessPS {
				name, stdout = name+"/ps", filepath.Join(psDir(taskDir, 0), "stdout")
			}
			got[name] = tfConfigOf(t, stdout)
			o := opts
			o.Process = proc
			env, err := contract.Eval(plan.Job, topo, ref, o)
			if err != nil {
				t.Fatalf("Eval %s: %v", name, err)
			}
			oracle[name], _ = env.Lookup("TF_CONFIG")
		}
		seed[refString(ref)+"/ps"] = cluster + fmt.Sprintf(`{"type":"ps","index":%d},"environment":"cloud"}`, i)
		if i == 0 {
			seed[refString(ref)] = cluster + `{"type":"master","index":0},"environment":"cloud"}`
		} else {
			seed[refString(ref)] = cluster + fmt.Sprintf(`{"type":"worker","index":%d},"environment":"cloud"}`, i-1)
		}
	}
	if diff := cmp.Diff(oracle, got); diff != "" {
		t.Errorf("TF_CONFIG (-oracle +process):\n%s", diff)
	}
	// The seed fixes the content, not the byte layout: compare as JSON.
	if diff := cmp.Diff(parseAll(t, seed), parseAll(t, got)); diff != "" {
		t.Errorf("TF_CONFIG (-seed +process):\n%s", diff)
	}
	for _, line := range []string{"[uai-1/ps] ps 1 serving\n", "[uai-0] master 0 done\n", "[uai-2] worker 1 reached ps 0 at "} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
}

func parseAll(t *testing.T, m map[string]string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range m {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			t.Errorf("%s: TF_CONFIG %q: %v", k, v, err)
		}
		out[k] = x
	}
	return out
}

// A parameter server that ends by itself (here exit 3, before the training
// process ends) decides nothing: the job succeeds on its training
// processes, and the ps is reported, not restarted.
func TestUAIPSExitDecidesNothing(t *testing.T) {
	job := paiV1("uai-sh", 0, roleDef{name: "n", n: 2, minF: intp(1), minS: intp(2),
		cmd: `case "$TF_CONFIG" in *'"type":"ps"'*) touch "$JOBSHIFT_TASK_DIR/ps-gone"; exit 3;; esac; ` +
			`while [ ! -e "$JOBSHIFT_TASK_DIR/ps-gone" ]; do sleep 0.05; done; echo trained`})
	job.Contracts = []string{jobs.ContractUAI}
	job.Roles[0].Ports = append([]jobs.Port{{Label: "uai", Count: 2}}, job.Roles[0].Ports...)
	out := &syncBuf{}
	res, runDir, evs := runJob(t, job, Options{Output: out})
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Errorf("result = %+v, want succeeded 0\noutput:\n%s", res, out.String())
	}
	want := map[string]completion.State{"n-0": completion.Succeeded, "n-1": completion.Succeeded}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s", diff)
	}
	var ends []string
	for _, e := range evs {
		if strings.Contains(e.Message, "/ps ") && !strings.Contains(e.Message, " started ") {
			ends = append(ends, e.Message)
		}
	}
	slices.Sort(ends)
	wantEnds := []string{"n-0/ps exited 3 by itself; it decides nothing and is not restarted",
		"n-1/ps exited 3 by itself; it decides nothing and is not restarted"}
	if diff := cmp.Diff(wantEnds, ends); diff != "" {
		t.Errorf("ps events (-want +got):\n%s", diff)
	}
	if m, _ := filepath.Glob(filepath.Join(runDir, "n-*", "attempt-1", "ps", "exit")); len(m) != 2 {
		t.Errorf("ps exit files = %v, want 2", m)
	}
	if !strings.Contains(out.String(), "[n-1] trained\n") {
		t.Errorf("output lacks [n-1] trained:\n%s", out.String())
	}
}

// uaiShJob is a 2-node UAI job running one sh command as both processes.
func uaiShJob(name, cmd string) *jobs.Job {
	job := paiV1(name, 0, roleDef{name: "n", n: 2, minF: intp(1), minS: intp(2), cmd: cmd})
	job.Contracts = []string{jobs.ContractUAI}
	job.Roles[0].Ports = append([]jobs.Port{{Label: "uai", Count: 2}}, job.Roles[0].Ports...)
	return job
}

// Stop reaches the parameter servers too: one that ignores SIGTERM is
// killed after the grace period, and nothing is left.
func TestUAIStopKillsPS(t *testing.T) {
	job := uaiShJob("uai-stop", `case "$TF_CONFIG" in *'"type":"ps"'*) trap "" TERM; echo ready >"$JOBSHIFT_TASK_DIR/ps-ready";; esac; sleep 300 & wait; sleep 300`)
	d, _ := New(Options{RunDir: filepath.Join(t.TempDir(), "run"), Grace: 300 * time.Millisecond})
	ctx := context.Background()
	h, err := d.Submit(ctx, planOf(job))
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		_, e0 := os.Stat(filepath.Join(h.ID, "n-0", "ps-ready"))
		_, e1 := os.Stat(filepath.Join(h.ID, "n-1", "ps-ready"))
		if e0 == nil && e1 == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := d.Stop(ctx, h); err != nil {
		t.Fatal(err)
	}
	res, _ := d.Wait(ctx, h)
	if res.Phase != completion.PhaseStopped {
		t.Errorf("result = %+v, want stopped", res)
	}
	assertNothingLeft(t, h.ID)
	got := map[string]string{}
	for _, f := range []string{"n-0/attempt-1/exit", "n-1/attempt-1/exit", "n-0/attempt-1/ps/exit", "n-1/attempt-1/ps/exit"} {
		b, _ := os.ReadFile(filepath.Join(h.ID, f))
		got[f] = strings.TrimSpace(string(b))
	}
	// the training processes die of SIGTERM (143), the ps of SIGKILL (137)
	want := map[string]string{"n-0/attempt-1/exit": "143", "n-1/attempt-1/exit": "143",
		"n-0/attempt-1/ps/exit": "137", "n-1/attempt-1/ps/exit": "137"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exit files (-want +got):\n%s", diff)
	}
}

// An in-place restart of the training process (PAI taskRetryCount without
// gang allocation) keeps the node's parameter server: one ps start per
// node for the whole attempt. The training process waits for its ps's
// start: a job whose training ends first stops a ps that never started (a
// race, under load, with the ps's start through the task view).
func TestUAIRestartKeepsPS(t *testing.T) {
	job := uaiShJob("uai-restart", `case "$TF_CONFIG" in *'"type":"ps"'*) echo ps >>"$JOBSHIFT_TASK_DIR/ps-starts"; exec sleep 300;; esac; `+
		`until [ -s "$JOBSHIFT_TASK_DIR/ps-starts" ]; do sleep 0.05; done; `+
		`[ -e "$JOBSHIFT_TASK_DIR/failed-once" ] && exit 0; touch "$JOBSHIFT_TASK_DIR/failed-once"; exit 1`)
	// as in TestPAITaskRetry: v2 without gang restarts a task in place
	job.Source.Format = jobs.FormatPAIv2
	job.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript, Script: job.Roles[0].Command.Script}
	job.Retry.GangAllocation = false
	job.Roles[0].TaskRetryCount = 1
	res, runDir, _ := runJob(t, job, Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v, want succeeded", res)
	}
	got := map[string]string{}
	for _, n := range []string{"n-0", "n-1"} {
		b, _ := os.ReadFile(filepath.Join(runDir, n, "ps-starts"))
		got[n+" ps starts"] = string(b)
		b, _ = os.ReadFile(filepath.Join(psDir(filepath.Join(runDir, n), 0), "exit"))
		got[n+" ps exit"] = strings.TrimSpace(string(b))
	}
	got["starts"] = strings.Join(starts(t, runDir), ",")
	want := map[string]string{"n-0 ps starts": "ps\n", "n-1 ps starts": "ps\n", "n-0 ps exit": "143", "n-1 ps exit": "143",
		"starts": "n-0/attempt-1,n-0/attempt-1-restart-1,n-1/attempt-1,n-1/attempt-1-restart-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestUAISeedShape: the UAI Train seed's shape as its users wrote it (one
// role of 4 nodes, the uai contract added with -contract, no ports
// declared: the contract asks for two per node) succeeds 5 times in a row.
// Every node's training process reaches all 4 parameter servers, the master
// only after the other training processes have ended
// (integration/testdata/uai_node.py), so every ps lives until the verdict.
func TestUAISeedShape(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 is needed: %v", err)
		}
		t.Skipf("python3 is needed: %v", err)
	}
	prog, err := filepath.Abs(filepath.Join("..", "..", "integration", "testdata", "uai_node.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "uai.json")
	src := fmt.Sprintf(`{"jobName": "uai-seed", "image": "python:3.11-slim", "taskRoles": [{"name": "node", "taskNumber": 4,
  "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "minSucceededTaskCount": 4, "minFailedTaskCount": 1, "command": "python3 %s"}]}`, prog)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, nil, []string{"uai"}, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for n := range 5 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			out := &syncBuf{}
			res, _, _ := runPlan(t, plan, Options{Output: out})
			if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
				t.Fatalf("result = %+v, want succeeded 0\noutput:\n%s", res, out.String())
			}
			for i := range 4 {
				if c := strings.Count(out.String(), fmt.Sprintf("[node-%d] ", i)+map[bool]string{true: "master", false: "worker"}[i == 0]); c != 4 {
					t.Errorf("node %d: training process reached %d parameter servers, want 4\noutput:\n%s", i, c, out.String())
				}
				if !strings.Contains(out.String(), fmt.Sprintf("[node-%d/ps] ps %d serving on", i, i)) {
					t.Errorf("node %d: its ps never served\noutput:\n%s", i, out.String())
				}
			}
		})
	}
}
