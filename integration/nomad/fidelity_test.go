package nomad_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
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
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// leinaoSeedFile writes seed 000's job (ps×2 CPU-only, worker×2 with gpus
// GPUs each, the LeinaoPAI registry image, worker minSucceeded = 2) with
// cmd as every role's command; ps and workers are the instance counts.
func leinaoSeedFile(t *testing.T, name string, ps, workers, gpus int, cmd string) string {
	t.Helper()
	var roles []map[string]any
	if ps > 0 { // a role of no tasks is not a valid v1 role
		roles = append(roles, map[string]any{"name": "ps", "taskNumber": ps, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0,
			"minSucceededTaskCount": ps, "minFailedTaskCount": 1, "command": cmd})
	}
	roles = append(roles, map[string]any{"name": "worker", "taskNumber": workers, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": gpus,
		"minSucceededTaskCount": workers, "minFailedTaskCount": 1, "command": cmd})
	job := map[string]any{
		"jobName":    name,
		"image":      "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
		"taskRoles":  roles,
		"retryCount": 0,
	}
	b, _ := json.Marshal(job)
	f := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkPeerLogs: every task of the job printed that it reached every task
// (itself included) on each of the three ports, and that all of them
// confirmed on its own three (integration/testdata/leinao_peer.py).
func checkPeerLogs(t *testing.T, c *api.Client, id string, tasks int) {
	t.Helper()
	allocs, _, err := c.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(allocs) != tasks {
		t.Fatalf("%d allocations, want %d", len(allocs), tasks)
	}
	for _, a := range allocs {
		logs := catLogs(t, a.ID, nomad.MainTask)
		if n := strings.Count(logs, " reached "); n != 3*tasks {
			t.Errorf("%s reached %d task ports, want %d:\n%s", a.Name, n, 3*tasks, logs)
		}
		if !strings.Contains(logs, fmt.Sprintf("confirmed by all %d tasks on 3 ports", tasks)) {
			t.Errorf("%s: not every task reached its three ports:\n%s", a.Name, logs)
		}
		if !strings.Contains(logs, "user alice") {
			t.Errorf("%s: PAI_USER_NAME (the YARN-era name) is not the user:\n%s", a.Name, logs)
		}
	}
}

// TestLeinaoSeedOnDocker: seed 000 as written (ps×2, worker×2 with 2 GPUs
// each, three mapped ports) on the Docker driver: each container binds
// 10001-10003, Docker maps them to dynamic host ports, and every task
// reaches every peer on all three ports through PAI_PORT_LIST_<r>_<i>.
func TestLeinaoSeedOnDocker(t *testing.T) {
	needDocker(t)
	prog, err := os.ReadFile(filepath.Join(agent.Repo(), "integration", "testdata", "leinao_peer.py"))
	if err != nil {
		t.Fatal(err)
	}
	// the image does not hold the program: it travels in the command
	cmd := fmt.Sprintf(`python3 -c "$(echo %s | base64 -d)"`, base64.StdEncoding.EncodeToString(prog))
	f := leinaoSeedFile(t, "leinao-seed", 2, 2, 2, cmd)
	cfg := &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "10.11.3.8:5000/*", Replace: torchImage}},
	}
	p := loadPlan(t, f, cfg)
	if p.Job.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", p.Job.Source.Dialect)
	}
	res, id := run(t, p)
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	if res.Phase != completion.PhaseSucceeded {
		dumpAllocs(t, c, id)
		t.Fatalf("result %+v", res)
	}
	checkPeerLogs(t, c, id, 4)
}

// TestLeinaoOnHostNetwork: on raw_exec a LeinaoPAI task runs in the host's
// network, alone on its node: PAI_PORT_MAP_1000x = 1000x and
// PAI_PORT_LIST = ip,10001,10002,10003. A job of one task runs and reaches
// itself on the three ports; the seed's four tasks need four client nodes,
// and with fewer the refusal is a placement failure that says so.
func TestLeinaoOnHostNetwork(t *testing.T) {
	c := agent.Client(t)
	prog := filepath.Join(agent.Repo(), "integration", "testdata", "leinao_peer.py")
	t.Run("one task", func(t *testing.T) {
		f := leinaoSeedFile(t, "leinao-host", 0, 1, 0, "python3 "+prog)
		p := loadPlan(t, f, site())
		res, id := run(t, p)
		defer c.Jobs().Deregister(id, true, nil)
		if res.Phase != completion.PhaseSucceeded {
			dumpAllocs(t, c, id)
			t.Fatalf("result %+v", res)
		}
		checkPeerLogs(t, c, id, 1)
		allocs, _, _ := c.Jobs().Allocations(id, true, nil)
		full, _, err := c.Allocations().Info(allocs[0].ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, port := range full.AllocatedResources.Shared.Ports {
			got = append(got, fmt.Sprintf("%s=%d", port.Label, port.Value))
		}
		if want := "leinao_0=10001 leinao_1=10002 leinao_2=10003"; strings.Join(got, " ") != want {
			t.Errorf("allocated ports %v, want %s", got, want)
		}
		logs := catLogs(t, full.ID, nomad.MainTask)
		if !strings.Contains(logs, "mapped to [10001, 10002, 10003]") {
			t.Errorf("PAI_PORT_MAP_1000x are not 1000x:\n%s", logs)
		}
	})
	t.Run("seed needs a node per task", func(t *testing.T) {
		nodes, _, err := c.Nodes().List(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) >= 4 {
			t.Skipf("the cluster has %d client nodes: the seed fits one task per node", len(nodes))
		}
		f := leinaoSeedFile(t, "leinao-seed-host", 2, 2, 2, "python3 "+prog)
		p := loadPlan(t, f, site())
		p.Options["id"] = fmt.Sprintf("leinao-seed-host-%d", time.Now().UnixNano()%1e9)
		t.Setenv("NOMAD_ADDR", agent.Addr(t))
		d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: p.Site})
		if err != nil {
			t.Fatal(err)
		}
		h, err := d.Submit(context.Background(), p)
		if err == nil {
			_ = d.Stop(context.Background(), h)
			c.Jobs().Deregister(h.ID, true, nil)
			t.Fatalf("a 4-task LeinaoPAI job on raw_exec was submitted to %d node(s)", len(nodes))
		}
		if !errors.Is(err, nomad.ErrPlacement) {
			t.Fatalf("err = %v, want ErrPlacement", err)
		}
		t.Logf("refused: %v", err)
		for _, want := range []string{"One task per node is impossible", "needs 4 client nodes", "distinct_hosts"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if _, _, err := c.Jobs().Info(p.Options["id"], nil); err == nil {
			t.Errorf("job %s was registered although it cannot be placed", p.Options["id"])
		}
	})
}

// TestUAISeedShapeOnRawExec: the UAI Train seed's shape (one role of 4
// nodes, -contract uai, no ports declared) succeeds 5 times in a row;
// every node's training process reaches all 4 parameter servers, the
// master only after a delay (integration/testdata/uai_node.py), so every
// node's PS must outlive its own training task.
func TestUAISeedShapeOnRawExec(t *testing.T) {
	c := agent.Client(t)
	prog := filepath.Join(agent.Repo(), "integration", "testdata", "uai_node.py")
	for n := range 5 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "uai.yaml")
			src := fmt.Sprintf(`protocolVersion: 2
name: uai-seed
type: job
prerequisites:
  - {type: dockerimage, name: img, uri: busybox}
taskRoles:
  node:
    instances: 4
    dockerImage: img
    resourcePerInstance: {cpu: 1, memoryMB: 128, gpu: 0}
    commands:
      - python3 %s
`, prog)
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
			if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
				dumpAllocs(t, c, id)
				t.Fatalf("result %+v", res)
			}
			allocs, _, err := c.Jobs().Allocations(id, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range allocs {
				if logs := catLogs(t, a.ID, nomad.MainTask); strings.Count(logs, "reached ps") != 4 {
					t.Errorf("%s: training task did not reach the 4 parameter servers:\n%s", a.Name, logs)
				}
				if ps := a.TaskStates[nomad.PSTask]; ps == nil || ps.Failed {
					t.Errorf("%s: PS task %+v, want run and stopped without failing", a.Name, ps)
				}
			}
			checkUAIEnv(t, c, p, id)
		})
	}
}

// dumpAllocs logs every allocation's task output and events (a failed run).
func dumpAllocs(t *testing.T, c *api.Client, id string) {
	t.Helper()
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	for _, a := range allocs {
		for name, ts := range a.TaskStates {
			var ev []string
			for _, e := range ts.Events {
				ev = append(ev, e.Type+": "+e.DisplayMessage)
			}
			out, _ := exec.Command(agent.Binary(), "alloc", "logs", "-stderr", "-address", agent.Addr(t), a.ID, name).CombinedOutput()
			t.Logf("%s/%s %s\nevents: %s\nstdout:\n%s\nstderr:\n%s", a.Name, name, ts.State, strings.Join(ev, "; "), catLogs(t, a.ID, name), out)
		}
	}
}
