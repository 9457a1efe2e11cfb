package nomad_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// uaiNode is the job's command on every node, in both processes: a
// parameter server (TF_CONFIG task type ps) serves its index on its port
// until stopped; a training process connects to every ps of the cluster,
// checks that each answers with its own index, and exits 0. So the job
// succeeds only if every PS task runs, binds the port its TF_CONFIG names,
// and the training task's exit (not the never-ending PS) decides.
const uaiNode = `import json, os, socket, sys, time
tf = json.loads(os.environ["TF_CONFIG"])
me = tf["task"]
if me["type"] == "ps":
    port = int(tf["cluster"]["ps"][me["index"]].rsplit(":", 1)[1])
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", port))
    s.listen(16)
    print("ps", me["index"], "serving on", port, flush=True)
    while True:
        c, _ = s.accept()
        c.sendall(b"ps %d\n" % me["index"])
        c.close()
for i, addr in enumerate(tf["cluster"]["ps"]):
    host, port = addr.rsplit(":", 1)
    deadline = time.time() + 60
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=5) as c:
                got = c.makefile().readline().strip()
            break
        except OSError as e:
            if time.time() > deadline:
                sys.exit("%s %d: ps %d at %s unreachable: %s" % (me["type"], me["index"], i, addr, e))
            time.sleep(0.2)
    if got != "ps %d" % i:
        sys.exit("%s %d: ps %d at %s answered %r" % (me["type"], me["index"], i, addr, got))
    print(me["type"], me["index"], "reached ps", i, "at", addr, flush=True)
`

// TestUAIParameterServersOnRawExec: a 3-node UAI Train job (PAI v2 file,
// contracts pai + uai) runs a PS task beside each training task; the job
// succeeds, the PS tasks run until the verdict stops the job (a node whose
// training ended early keeps serving its peers), are stopped, not failed, and
// each task's TF_CONFIG (and PAI variables) equal the oracle's for the
// topology Nomad actually chose, per process.
func TestUAIParameterServersOnRawExec(t *testing.T) {
	c := agent.Client(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "uai_node.py")
	if err := os.WriteFile(prog, []byte(uaiNode), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`protocolVersion: 2
name: uai
type: job
prerequisites:
  - {type: dockerimage, name: img, uri: busybox}
taskRoles:
  train:
    instances: 3
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 128, gpu: 0, ports: {uai: 2}}
    commands:
      - python3 %s
`, prog)
	path := filepath.Join(dir, "uai.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := translate.Build(j, site(), []string{"uai"}, "alice")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	res, id := run(t, p)
	defer c.Jobs().Deregister(id, true, nil)
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		for _, a := range allocs {
			for _, task := range []string{nomad.MainTask, nomad.PSTask} {
				out, _ := exec.Command(agent.Binary(), "alloc", "logs", "-stderr", "-address", agent.Addr(t), a.ID, task).CombinedOutput()
				env, _ := exec.Command(agent.Binary(), "alloc", "fs", "-address", agent.Addr(t), a.ID, task+"/local/jobshift.env").CombinedOutput()
				if sh, err := exec.Command(agent.Binary(), "alloc", "fs", "-address", agent.Addr(t), a.ID, task+"/"+nomad.ShellEnvFile).CombinedOutput(); err == nil {
					env = sh
				}
				t.Logf("%s %s:\n%s\nstderr:\n%s\nenv file:\n%s", a.Name, task, catLogs(t, a.ID, task), out, env)
			}
		}
		t.Fatalf("result %+v", res)
	}
	if len(allocs) != 3 {
		t.Fatalf("%d allocations, want 3", len(allocs))
	}
	for _, a := range allocs {
		if a.ClientStatus == "running" || a.ClientStatus == "pending" {
			t.Errorf("alloc %s still %s", a.Name, a.ClientStatus)
		}
		ps := a.TaskStates[nomad.PSTask]
		if ps == nil || ps.StartedAt.IsZero() || ps.State != "dead" || ps.Failed {
			t.Errorf("%s: PS task %+v, want started, then stopped without failing", a.Name, ps)
		}
		if logs := catLogs(t, a.ID, nomad.MainTask); strings.Count(logs, "reached ps") != 3 {
			t.Errorf("%s: training task did not reach the 3 parameter servers:\n%s", a.Name, logs)
		}
	}
	checkUAIEnv(t, c, p, id)
}

// checkUAIEnv is checkEnvAgainstOracle for both processes of every node:
// task main gets the oracle's ProcessMain environment, task ps its
// ProcessPS one.
func checkUAIEnv(t *testing.T, c *api.Client, p *translate.Plan, id string) {
	t.Helper()
	topo := topology(t, c, p, id)
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	for _, a := range allocs {
		full, _, err := c.Allocations().Info(a.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := full.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole]
		i := strings.LastIndexByte(a.Name, '[')
		var idx int
		fmt.Sscanf(a.Name[i:], "[%d]", &idx)
		for task, proc := range map[string]string{nomad.MainTask: contract.ProcessMain, nomad.PSTask: contract.ProcessPS} {
			want, err := contract.Eval(p.Job, topo, jobs.TaskRef{Role: role, Index: idx},
				contract.Options{User: p.User, Contracts: p.Contracts, Process: proc})
			if err != nil {
				t.Fatal(err)
			}
			got, err := renderedEnv(t, c, full, task)
			if err != nil {
				t.Errorf("%s %s: reading the rendered env: %v", a.Name, task, err)
				continue
			}
			sawTF := false
			for _, v := range want {
				if v.Name == contract.WorkDirVar {
					continue // exported by the task itself
				}
				sawTF = sawTF || v.Name == "TF_CONFIG"
				if g, ok := got[v.Name]; !ok || g != v.Value {
					t.Errorf("%s %s: %s = %q, oracle %q", a.Name, task, v.Name, g, v.Value)
				}
				delete(got, v.Name)
			}
			if !sawTF {
				t.Errorf("%s %s: the oracle has no TF_CONFIG", a.Name, task)
			}
			for k := range got {
				if !strings.HasPrefix(k, "CUDA_VISIBLE_DEVICES") {
					t.Errorf("%s %s: %s rendered but not in the oracle", a.Name, task, k)
				}
			}
		}
	}
}

// TestUAIFinisherWithoutJobshiftProcess: submitted with plain `nomad job
// run` and the in-job finisher, a UAI job still ends: no task leads the
// group (a node's PS stays up for the other nodes), the judge task of
// each node waits for its training task, the last one records the verdict
// and stops the job, which ends the parameter servers.
func TestUAIFinisherWithoutJobshiftProcess(t *testing.T) {
	// succeed: every training task ends 0 (the judges decide), node 1's
	// three seconds after node 0's, so node 0's judge has judged "no rule
	// fired" long before the verdict and node 0's PS must outlive it (a
	// sidecar judge failed on its exit 0 and Nomad killed that PS); fail: node
	// 1's training task exits 3, Nomad kills its PS and judge, and the
	// poststop finisher of that allocation records the failure (the stop
	// may come before node 0's tasks even started).
	for _, tc := range []struct{ name, train, phase, code string }{
		{"succeed", `[ "$NOMAD_ALLOC_INDEX" != 1 ] || sleep 3; sleep 1`, "succeeded", "0"},
		{"fail", `[ "$NOMAD_ALLOC_INDEX" != 1 ] || exit 3; sleep 30`, "failed", "3"},
	} {
		t.Run(tc.name, func(t *testing.T) { uaiFinisher(t, tc.train, tc.phase, tc.code) })
	}
}

func uaiFinisher(t *testing.T, train, phase, code string) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	src := `protocolVersion: 2
name: uaifin
type: job
prerequisites:
  - {type: dockerimage, name: img, uri: busybox}
taskRoles:
  train:
    instances: 2
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 128, gpu: 0, ports: {uai: 2}}
    commands:
      - 'case "$TF_CONFIG" in *''"task":{"type":"ps"''*) exec sleep 3600 ;; esac'
      - %s
`
	src = fmt.Sprintf(src, strconv.Quote(train))
	path := filepath.Join(dir, "uaifin.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := translate.Build(j, site(), []string{"=uai"}, "alice")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	id := fmt.Sprintf("uaifin-%d", time.Now().UnixNano()%1e9)
	p.Options["id"] = id
	p.Options[nomad.OptWorkDir] = agent.Repo()
	p.Options[nomad.OptHelper] = helper(t)
	d, _ := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
	art, err := d.Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "job.nomad.hcl")
	if err := os.WriteFile(f, art.Files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(agent.Binary(), "job", "run", "-detach", f).CombinedOutput(); err != nil {
		t.Fatalf("nomad job run: %v\n%s", err, out)
	}
	defer c.Jobs().Deregister(id, true, nil)
	end := time.Now().Add(2 * time.Minute)
	for time.Now().Before(end) {
		v, _, err := c.Variables().Read(nomad.ResultPath(id), nil)
		if err != nil || v == nil {
			time.Sleep(500 * time.Millisecond)
			continue
		}
		if v.Items["phase"] != phase || v.Items["exitCode"] != code {
			t.Fatalf("verdict %v, want %s with exit code %s", v.Items, phase, code)
		}
		judged := false
		for time.Now().Before(end) {
			allocs, _, _ := c.Jobs().Allocations(id, true, nil)
			live := 0
			for _, a := range allocs {
				if a.ClientStatus == "running" || a.ClientStatus == "pending" {
					live++
				}
				if ps := a.TaskStates[nomad.PSTask]; phase == "succeeded" && (ps == nil || ps.StartedAt.IsZero()) {
					t.Fatalf("%s: the PS task never ran: %+v", a.Name, ps)
				}
				if j := a.TaskStates[nomad.JudgeTask]; j != nil && !j.StartedAt.IsZero() {
					judged = true
				}
			}
			if live == 0 {
				// Only a judge can end a UAI job whose training tasks all
				// succeed (the PS never ends, so no poststop task runs
				// before the stop); a judge may be killed before it
				// started when another one decided first.
				if phase == "succeeded" && !judged {
					t.Error("no judge task ran, yet the job ended")
				}
				for _, a := range allocs {
					if phase == "succeeded" {
						psOutlivedJudge(t, a)
					}
				}
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
		t.Fatal("allocations still running after the verdict")
	}
	t.Fatal("no verdict within 2 minutes")
}

// psOutlivedJudge: in a job that succeeds, an allocation's judge never
// fails and its PS is never ended by a sibling's end (only by the job's
// stop after the verdict).
func psOutlivedJudge(t *testing.T, a *api.AllocationListStub) {
	t.Helper()
	if j := a.TaskStates[nomad.JudgeTask]; j != nil && j.Failed {
		t.Errorf("%s: the judge failed: %s", a.Name, events(j))
	}
	if ps := a.TaskStates[nomad.PSTask]; ps != nil {
		for _, e := range ps.Events {
			if e.Type == api.TaskSiblingFailed {
				t.Errorf("%s: the PS was killed before the verdict: %s", a.Name, events(ps))
			}
		}
	}
}

func events(ts *api.TaskState) string {
	var b strings.Builder
	for _, e := range ts.Events {
		fmt.Fprintf(&b, "[%s: %s%s] ", e.Type, e.DisplayMessage, e.FailedSibling)
	}
	return b.String()
}
