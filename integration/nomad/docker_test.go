package nomad_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

const torchImage = "jobshift/torch:bookworm"

var (
	buildOnce sync.Once
	buildErr  error
)

// needDocker skips (fails under CI=true) when the agent has no healthy
// Docker driver or the locally built torch image is missing.
func needDocker(t *testing.T) {
	t.Helper()
	c := agent.Client(t)
	nodes, _, err := c.Nodes().List(nil)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("no nodes: %v", err)
	}
	n, _, err := c.Nodes().Info(nodes[0].ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	why := ""
	if d := n.Drivers["docker"]; d == nil || !d.Healthy {
		why = "the agent's Docker driver is not healthy"
	} else if err := exec.Command("docker", "image", "inspect", torchImage).Run(); err != nil {
		why = "image " + torchImage + " is missing: run integration/nomad/build-torch-image.sh"
		if os.Getenv("CI") == "true" || os.Getenv("JOBSHIFT_BUILD_IMAGES") == "1" {
			// Built once, cached under JOBSHIFT_CACHE (debootstrap, ~10 min).
			buildOnce.Do(func() {
				out, err := exec.Command("bash", filepath.Join(agent.Repo(), "integration", "nomad", "build-torch-image.sh"), torchImage).CombinedOutput()
				if err != nil {
					buildErr = fmt.Errorf("%v\n%s", err, out)
				}
			})
			if buildErr == nil {
				why = ""
			} else {
				why += ": building it failed: " + buildErr.Error()
			}
		}
	}
	if why != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
}

// needImageModule skips (fails under CI=true) when the torch image's
// python3 cannot import module: an image of an older recipe
// (build-torch-image.sh tags its images by recipe). Under CI=true or
// JOBSHIFT_BUILD_IMAGES=1 the script builds the current recipe's image.
func needImageModule(t *testing.T, module string) {
	t.Helper()
	imports := func() bool {
		return exec.Command("docker", "run", "--rm", "--network", "none", torchImage, "python3", "-c", "import "+module).Run() == nil
	}
	if imports() {
		return
	}
	why := "image " + torchImage + " has no python3 module " + module + ": run integration/nomad/build-torch-image.sh (its recipe changed)"
	if os.Getenv("CI") == "true" || os.Getenv("JOBSHIFT_BUILD_IMAGES") == "1" {
		out, err := exec.Command("bash", filepath.Join(agent.Repo(), "integration", "nomad", "build-torch-image.sh"), torchImage).CombinedOutput()
		if err == nil && imports() {
			return
		}
		why += fmt.Sprintf(": building it: %v\n%s", err, out)
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// leinaoProgram binds the container's port 10001 (as mnist_replica.py
// does), then reaches every task of the job through PAI_PORT_LIST_<r>_<i>
// (ip,p1,p2,p3: host ports) and prints who answered.
const leinaoProgram = `import os, socket, sys, threading, time
me = "%s-%s" % (os.environ["PAI_CURRENT_TASK_ROLE_NAME"], os.environ["PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"])
assert os.environ["PAI_PORT_MAP_10001"] and os.environ["PAI_PORT_MAP_10003"]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", 10001)); srv.listen(16)
def serve():
    while True:
        c, _ = srv.accept(); c.sendall(me.encode()); c.close()
threading.Thread(target=serve, daemon=True).start()
for k, v in sorted((k, v) for k, v in os.environ.items() if k.startswith("PAI_PORT_LIST_")):
    f = v.split(",")
    assert len(f) == 4, v
    for _ in range(150):
        try:
            s = socket.create_connection((f[0], int(f[1])), timeout=2); got = s.recv(100).decode(); s.close(); break
        except OSError:
            time.sleep(0.2)
    else:
        sys.exit("cannot reach %s at %s:%s" % (k, f[0], f[1]))
    print(me, "reached", k, "->", got, flush=True)
if me.startswith("ps"):
    time.sleep(3600)
time.sleep(3)
`

// TestLeinaoOnDockerBridge: the LeinaoPAI job keeps its own semantics on
// the Docker driver: inside every container the three ports are
// 10001–10003, mapped to dynamic host ports; PAI_PORT_LIST_<r>_<i> gives
// ip,p1,p2,p3 and a task bound to :10001 is reached by all its peers.
func TestLeinaoOnDockerBridge(t *testing.T) {
	needDocker(t)
	prog := base64.StdEncoding.EncodeToString([]byte(leinaoProgram))
	cmd := fmt.Sprintf(`python3 -c "$(echo %s | base64 -d)"`, prog)
	job := map[string]any{
		"jobName": "leinao-bridge",
		"image":   "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
		"taskRoles": []map[string]any{
			{"name": "ps", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": cmd},
			{"name": "worker", "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, "command": cmd, "minSucceededTaskCount": 2},
		},
	}
	b, _ := json.Marshal(job)
	f := filepath.Join(t.TempDir(), "leinao.json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &siteconfig.Config{
		Nomad:  &siteconfig.NomadConfig{Driver: "docker", CPUMHzPerCore: 100, BarrierTimeout: "2m"},
		Images: []siteconfig.ImageRule{{Pattern: "10.11.3.8:5000/*", Replace: torchImage}},
	}
	p := loadPlan(t, f, cfg)
	if p.Job.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", p.Job.Source.Dialect)
	}
	res, id := run(t, p)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	c := agent.Client(t)
	defer c.Jobs().Deregister(id, true, nil)
	allocs, _, _ := c.Jobs().Allocations(id, true, nil)
	for _, a := range allocs {
		if a.TaskGroup != "worker" {
			continue
		}
		full, _, _ := c.Allocations().Info(a.ID, nil)
		for _, port := range full.AllocatedResources.Shared.Ports {
			if port.To < 10001 || port.To > 10003 {
				t.Errorf("%s: port %s maps to %d, want 10001..10003", a.Name, port.Label, port.To)
			}
		}
		logs := catLogs(t, full.ID, nomad.MainTask)
		if n := strings.Count(logs, " reached "); n != 3 {
			t.Errorf("%s reached %d tasks, want 3:\n%s", a.Name, n, logs)
		}
	}
}

func catLogs(t *testing.T, alloc, task string) string {
	t.Helper()
	out, err := exec.Command(agent.Binary(), "alloc", "logs", "-address", agent.Addr(t), alloc, task).CombinedOutput()
	if err != nil {
		t.Errorf("alloc logs: %v %s", err, out)
	}
	return string(out)
}
