package nomad_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate/completion"
)

// privateNomad is a Nomad server with clients of its own, one process
// each on this machine, started by the test: a client can be lost with
// its host (killClient) without touching the shared dev agent or the
// cluster.sh clusters other tests use.
type privateNomad struct {
	addr    string
	dir     string
	clients map[string]*exec.Cmd // node name → agent
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startAgent starts one agent (server or client) with the HCL body given;
// it returns the agent and its HTTP, RPC and Serf ports.
func (c *privateNomad) startAgent(t *testing.T, name, body string) (*exec.Cmd, [3]int) {
	p := [3]int{freePort(t), freePort(t), freePort(t)}
	hcl := fmt.Sprintf("name = %q\ndata_dir = %q\nbind_addr = \"127.0.0.1\"\nports {\n  http = %d\n  rpc = %d\n  serf = %d\n}\n"+
		"advertise {\n  http = \"127.0.0.1\"\n  rpc = \"127.0.0.1\"\n  serf = \"127.0.0.1\"\n}\n%s", name, filepath.Join(c.dir, name), p[0], p[1], p[2], body)
	f := filepath.Join(c.dir, name+".hcl")
	if err := os.WriteFile(f, []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	log, _ := os.Create(filepath.Join(c.dir, name+".log"))
	cmd := exec.Command(agent.Binary(), "agent", "-config="+f)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _, _ = cmd.Process.Wait() })
	return cmd, p
}

// startPrivateNomad: a server that declares a lost client within seconds
// (min_heartbeat_ttl, heartbeat_grace) and n raw_exec clients, each with a
// cgroup parent of its own (several clients share the machine's tree).
func startPrivateNomad(t *testing.T, n int) *privateNomad {
	if os.Geteuid() != 0 || agent.Binary() == "" {
		t.Skip("needs root and a nomad binary")
	}
	c := &privateNomad{dir: t.TempDir(), clients: map[string]*exec.Cmd{}}
	// after the agents stopped, before the directory goes: the clients
	// leave their allocations' secrets and private tmpfs mounted
	t.Cleanup(func() { unmountUnder(c.dir) })
	_, sp := c.startAgent(t, "server", "server {\n  enabled = true\n  bootstrap_expect = 1\n  min_heartbeat_ttl = \"3s\"\n  heartbeat_grace = \"3s\"\n}\n")
	c.addr = fmt.Sprintf("http://127.0.0.1:%d", sp[0])
	tag := strconv.Itoa(os.Getpid())
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("lost%s-c%d", tag, i)
		t.Cleanup(func() { removeCgroups(name) }) // after the agents stopped
		c.clients[name], _ = c.startAgent(t, name, fmt.Sprintf("client {\n  enabled = true\n  servers = [\"127.0.0.1:%d\"]\n  cgroup_parent = \"/%s\"\n"+
			"  cpu_total_compute = 8000\n  memory_total_mb = 16000\n  options = { \"fingerprint.denylist\" = \"env_aws,env_gce,env_azure,env_digitalocean\" }\n}\n"+
			"plugin \"raw_exec\" {\n  config { enabled = true }\n}\n", sp[1], name))
	}
	cl, err := api.NewClient(&api.Config{Address: c.addr})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		nodes, _, err := cl.Nodes().List(nil)
		ready := 0
		for _, nd := range nodes {
			if nd.Status == "ready" {
				ready++
			}
		}
		if err == nil && ready == n {
			return c
		}
	}
	t.Fatalf("the private Nomad cluster did not get %d ready clients (logs in %s)", n, c.dir)
	return nil
}

// unmountUnder detaches every mount below dir (deepest first).
func unmountUnder(dir string) {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var ms []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			ms = append(ms, f[4])
		}
	}
	for i := len(ms) - 1; i >= 0; i-- {
		_ = syscall.Unmount(ms[i], syscall.MNT_DETACH)
	}
}

// removeCgroups removes the (empty) cgroups a client left under its
// parent, children first.
func removeCgroups(parent string) {
	roots, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", parent))
	if r, err := filepath.Glob(filepath.Join("/sys/fs/cgroup", parent)); err == nil {
		roots = append(roots, r...)
	}
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = os.Remove(dirs[i])
		}
	}
}

// killClient is a power loss of the client's host: its agent and every
// process of its tasks (the executors it started, found by its data
// directory, and their descendants) SIGKILLed at once. The tree is read
// before anything is killed: the agent's own children (each allocation's
// logmon) would otherwise be the init process's, and outlive the test.
func (c *privateNomad) killClient(t *testing.T, name string) {
	data := filepath.Join(c.dir, name) + "/"
	parent := map[int][]int{}
	roots := []int{c.clients[name].Process.Pid}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmdline), data) {
			roots = append(roots, pid)
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 1 {
				pp, _ := strconv.Atoi(f[1])
				parent[pp] = append(parent[pp], pid)
			}
		}
	}
	for len(roots) > 0 {
		pid := roots[0]
		roots = append(roots[1:], parent[pid]...)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestVolcanoPodEvictedOnNomad: a Volcano job with PodEvicted → RestartJob
// (examples/testdata/volcano-podevicted-restartjob.yaml) on a private
// two-client Nomad cluster; while every task runs, worker-1 leaves its
// node: its client is lost with its host, or the node is drained (as a
// Kubernetes drain evicts the pod). Either is PodEvicted
// (job_controller_handler.go deletePod, @v1.16.0-alpha.1): worker-1
// Failed with ExitNodeLost, the job restarted, and it succeeds on the
// client left.
func TestVolcanoPodEvictedOnNomad(t *testing.T) {
	for name, evict := range map[string]func(*testing.T, *privateNomad, *api.Client, string){
		"host lost": func(t *testing.T, pc *privateNomad, cl *api.Client, id string) {
			pc.killClient(t, nodeOf(t, cl, id, "worker[1]"))
		},
		"node drained": func(t *testing.T, _ *privateNomad, cl *api.Client, id string) {
			_, err := cl.Nodes().UpdateDrainOpts(nodeIDOf(t, cl, id, "worker[1]"), &api.DrainOptions{DrainSpec: &api.DrainSpec{Deadline: time.Second}}, nil)
			if err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) { podEvicted(t, evict) })
	}
}

// podEvicted runs the PodEvicted example, calling evict once every task
// runs, and checks the eviction and the restart.
func podEvicted(t *testing.T, evict func(*testing.T, *privateNomad, *api.Client, string)) {
	pc := startPrivateNomad(t, 2)
	t.Setenv("NOMAD_ADDR", pc.addr)
	site := &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Address: pc.addr, Driver: "raw_exec", CPUMHzPerCore: 100, BarrierTimeout: "2m"}}
	p := loadPlan(t, filepath.Join(agent.Repo(), "examples", "testdata", "volcano-podevicted-restartjob.yaml"), site)
	p.Options["id"] = fmt.Sprintf("vc-podevicted-%d", time.Now().UnixNano()%1e9)
	p.Options[nomad.OptWorkDir], p.Options[nomad.OptWatched] = agent.Repo(), "true"
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := api.NewClient(&api.Config{Address: pc.addr})
	running, done, evicted, lost := map[string]bool{}, false, false, false
	var final *drivers.Result
	for e := range events {
		t.Logf("attempt %d %v %s %d %s", e.Attempt, e.Task, e.State, e.ExitCode, e.Message)
		if e.Task != nil && e.Attempt == 0 && e.State == completion.Running {
			running[fmt.Sprintf("%s-%d", e.Task.Role, e.Task.Index)] = true
		}
		if !done && len(running) == 3 {
			done = true
			evict(t, pc, cl, h.ID)
		}
		lost = lost || e.Task != nil && e.Task.Role == "worker" && e.Task.Index == 1 && e.State == completion.Failed && e.ExitCode == nomad.ExitNodeLost
		evicted = evicted || strings.Contains(e.Message, "PodEvicted of worker-1 → RestartJob")
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil || final.Phase != completion.PhaseSucceeded || final.Attempts != 2 {
		t.Errorf("result = %+v, want succeeded after 2 attempts", final)
	}
	if !lost || !evicted {
		t.Errorf("worker-1 off its node: %v; PodEvicted → RestartJob: %v", lost, evicted)
	}
}

// nodeIDOf is nodeOf's node ID.
func nodeIDOf(t *testing.T, cl *api.Client, id, suffix string) string {
	name := nodeOf(t, cl, id, suffix)
	nodes, _, err := cl.Nodes().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Name == name {
			return n.ID
		}
	}
	t.Fatalf("no node %s", name)
	return ""
}

// nodeOf is the node name of the job's allocation whose name ends with
// suffix (e.g. "worker[1]").
func nodeOf(t *testing.T, cl *api.Client, id, suffix string) string {
	allocs, _, err := cl.Jobs().Allocations(id, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range allocs {
		if strings.HasSuffix(a.Name, "."+suffix) && a.ClientStatus == "running" {
			return a.NodeName
		}
	}
	t.Fatalf("no running allocation %s of %s", suffix, id)
	return ""
}
