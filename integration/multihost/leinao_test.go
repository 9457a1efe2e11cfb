package multihost_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// torchImage is the locally built image (integration/nomad/build-torch-image.sh)
// that cluster.sh loads into every Nomad client's own dockerd.
const torchImage = "jobshift/torch:bookworm"

// leinaoProbe stands in for mnist_replica.py in the LeinaoPAI seed: it binds
// the three container ports 10001-10003, reaches every task of the job
// (itself too) on all three ports through PAI_PORT_LIST_<r>_<i> =
// ip,p1,p2,p3, and exits 0 once it reached all of them, all of them
// reached it, and all of them told it they got that far (so a task that
// ends early never leaves a peer unanswered, nor ends the job under it).
// Its environment goes to stdout as one JSON line for the oracle check; its
// argv (the seed's --ps_hosts/--worker_hosts/--job_name/--task_index,
// expanded by the task's shell) too.
const leinaoProbe = `import json, os, socket, sys, threading, time
me = "%s-%s" % (os.environ["PAI_CURRENT_TASK_ROLE_NAME"], os.environ["PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"])
print("ENV " + json.dumps(dict(os.environ)), flush=True)
print("ARGV " + json.dumps(sys.argv[1:]), flush=True)
peers = sorted((k, v) for k, v in os.environ.items() if k.startswith("PAI_PORT_LIST_"))
want_in = 3 * len(peers)
got_in = []
lock = threading.Lock()
def serve(port):
    srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port)); srv.listen(64)
    while True:
        c, _ = srv.accept()
        c.sendall(("%s:%d" % (me, port)).encode()); c.close()
        with lock:
            got_in.append(port)
for p in (10001, 10002, 10003):
    threading.Thread(target=serve, args=(p,), daemon=True).start()
for k, v in peers:
    f = v.split(",")
    assert len(f) == 4, v
    for j, p in enumerate(f[1:]):
        for _ in range(600):
            try:
                s = socket.create_connection((f[0], int(p)), timeout=2); got = s.recv(100).decode(); s.close()
                if got:
                    break
            except OSError:
                pass
            # Docker's userland proxy accepts on the host port before the
            # container listens, then closes: an empty answer is "not yet"
            time.sleep(0.2)
        else:
            sys.exit("%s: cannot reach %s port %d at %s:%s" % (me, k, j + 1, f[0], p))
        if got != "%s:%d" % (k[len("PAI_PORT_LIST_"):].rsplit("_", 1)[0] + "-" + k.rsplit("_", 1)[1], 10001 + j):
            sys.exit("%s: %s port %d at %s:%s answered %r" % (me, k, j + 1, f[0], p, got))
        print(me, "reached", k, "port", j + 1, "->", got, flush=True)
for _ in range(1500):
    with lock:
        if len(got_in) >= want_in:
            break
    time.sleep(0.2)
else:
    sys.exit("%s: reached by %d connections, want %d" % (me, len(got_in), want_in))
print(me, "reached by all", flush=True)
# The seed's rule ends the job when its ps tasks have succeeded and stops
# the workers: a task that exited here could end the job before a slower
# peer printed its own "reached by all". So each task tells every peer it
# is done (one more connection each) and exits only once every peer told
# it: then every task has printed both lines, and every connection here
# goes to a task that is still up (it waits for this one's).
for k, v in peers:
    f = v.split(",")
    s = socket.create_connection((f[0], int(f[1])), timeout=10); s.recv(100); s.close()
for _ in range(1500):
    with lock:
        if len(got_in) >= want_in + len(peers):
            break
    time.sleep(0.2)
else:
    sys.exit("%s: %d of %d peers done" % (me, len(got_in) - want_in, len(peers)))
`

// leinaoSeed writes the LeinaoPAI seed (shared/seeds/000: ps x2, worker x2
// with 2 GPUs each, minSucceededTaskCount 2 for both, retryCount 0) with
// the probe in place of mnist_replica.py and the seed's flags kept.
func leinaoSeed(t *testing.T) string {
	t.Helper()
	prog := base64.StdEncoding.EncodeToString([]byte(leinaoProbe))
	cmd := func(role string, gpus int) string {
		return fmt.Sprintf(`python3 -c "$(echo %s | base64 -d)" --num_gpus=%d --batch_size=32 --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST --worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=%s --task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX`, prog, gpus, role)
	}
	job := map[string]any{
		"jobName": "tensorflow-distributed",
		"image":   "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
		"taskRoles": []map[string]any{
			{"name": "ps", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 8192, "gpuNumber": 0,
				"minSucceededTaskCount": 2, "minFailedTaskCount": 1, "command": cmd("ps", 0)},
			{"name": "worker", "taskNumber": 2, "cpuNumber": 2, "memoryMB": 16384, "gpuNumber": 2,
				"minSucceededTaskCount": 2, "minFailedTaskCount": 1, "command": cmd("worker", 2)},
		},
		"retryCount": 0,
	}
	b, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "leinao.json")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// probeOut is what the probe printed: its environment, its argv, and how
// many peer ports it reached.
type probeOut struct {
	env     map[string]string
	argv    []string
	reached int
	done    bool
}

func parseProbe(t *testing.T, task, out string) probeOut {
	t.Helper()
	var p probeOut
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "ENV "):
			if err := json.Unmarshal([]byte(l[4:]), &p.env); err != nil {
				t.Errorf("%s: ENV line: %v", task, err)
			}
		case strings.HasPrefix(l, "ARGV "):
			if err := json.Unmarshal([]byte(l[5:]), &p.argv); err != nil {
				t.Errorf("%s: ARGV line: %v", task, err)
			}
		case strings.Contains(l, " reached PAI_PORT_LIST_"):
			p.reached++
		case strings.HasSuffix(l, " reached by all"):
			p.done = true
		}
	}
	return p
}

// checkLeinaoTask: the task's environment equals the oracle's, its seed
// flags expanded to the oracle's host lists, and it reached all 4 tasks on
// all 3 ports and was reached by all of them.
func checkLeinaoTask(t *testing.T, plan *translate.Plan, topo contract.Topology, role string, i int, p probeOut, workDir string) {
	t.Helper()
	task := fmt.Sprintf("%s-%d", role, i)
	want, err := contract.Eval(plan.Job, topo, jobs.TaskRef{Role: role, Index: i}, contract.Options{User: plan.User, Contracts: plan.Contracts})
	if err != nil {
		t.Fatal(err)
	}
	wm := want.Map()
	if wd, ok := wm[contract.WorkDirVar]; ok && wd == "" {
		wm[contract.WorkDirVar] = workDir
	}
	got := map[string]string{}
	for k := range wm {
		if v, ok := p.env[k]; ok {
			got[k] = v
		}
	}
	if d := cmp.Diff(wm, got); d != "" {
		t.Errorf("%s: contract (-oracle +task):\n%s", task, d)
	}
	wantArgv := []string{"--num_gpus=" + map[string]string{"ps": "0", "worker": "2"}[role], "--batch_size=32",
		"--ps_hosts=" + wm["PAI_TASK_ROLE_ps_HOST_LIST"], "--worker_hosts=" + wm["PAI_TASK_ROLE_worker_HOST_LIST"],
		"--job_name=" + role, fmt.Sprintf("--task_index=%d", i)}
	if d := cmp.Diff(wantArgv, p.argv); d != "" {
		t.Errorf("%s: argv (-want +got):\n%s", task, d)
	}
	if p.reached != 12 || !p.done {
		t.Errorf("%s: reached %d peer ports (want 4 tasks x 3), reached by all: %v", task, p.reached, p.done)
	}
}

// needClientImage: image is in every client's own dockerd (cluster.sh
// loads it when the machine's daemon has it); build is its script.
func needClientImage(t *testing.T, c *cluster, image, build string) {
	t.Helper()
	for name := range c.Hosts {
		sock := filepath.Join(filepath.Dir(c.Env["JOBSHIFT_CONFIG"]), name, "d", "docker.sock")
		if err := exec.Command("docker", "--host", "unix://"+sock, "image", "inspect", image).Run(); err != nil {
			msg := fmt.Sprintf("%s's dockerd (%s) has no %s: build it (integration/nomad/%s), then cluster.sh down/up nomad", name, sock, image, build)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// TestLeinaoSeedNomadDocker: the LeinaoPAI seed on the clients' own Docker
// daemons in bridge mode: each container binds 10001-10003, Nomad maps them
// to host ports on its client's address, and every task reaches every task
// (on other hosts, and itself through its host's address) on all three.
func TestLeinaoSeedNomadDocker(t *testing.T) {
	c := need(t, "nomad")
	needClientImage(t, c, torchImage, "build-torch-image.sh")
	cl := nomadClient(t, c)
	dc := onDocker(c, siteconfig.ImageRule{Pattern: "10.11.3.8:5000/*", Replace: torchImage})
	plan := loadPlan(t, dc, leinaoSeed(t))
	if plan.Job.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", plan.Job.Source.Dialect)
	}
	res, id := runNomad(t, c, plan, 5*time.Minute)
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	tasks := nomadTasks(t, cl, id)
	if len(tasks) != 4 {
		t.Fatalf("%d allocations, want 4", len(tasks))
	}
	topo := nomadTopology(plan, id, tasks)
	checkNodes(t, c, cl, plan, topo, tasks)
	for _, nt := range tasks {
		if nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks[0].Driver != "docker" {
			t.Errorf("%s: driver %s, want docker", nt.alloc.Name, nt.alloc.Job.LookupTaskGroup(nt.alloc.TaskGroup).Tasks[0].Driver)
		}
		for _, port := range nt.alloc.AllocatedResources.Shared.Ports {
			if port.To < 10001 || port.To > 10003 {
				t.Errorf("%s: port %s maps to container port %d, want 10001..10003", nt.alloc.Name, port.Label, port.To)
			}
		}
		out := catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
		checkLeinaoTask(t, plan, topo, nt.role, nt.index, parseProbe(t, nt.alloc.Name, out), "")
	}
}

// TestLeinaoSeedSlurm: the LeinaoPAI seed on Slurm: host networking, one
// task per node (--ntasks-per-node=1, so 4 nodes), ports 10001-10003 as on
// LeinaoPAI; every task reaches every task on all three ports across hosts.
func TestLeinaoSeedSlurm(t *testing.T) {
	c := need(t, "slurm")
	if len(c.Hosts) < 4 {
		msg := fmt.Sprintf("the LeinaoPAI seed runs one task per node: 4 nodes needed, the cluster has %d (cluster.sh up slurm 4)", len(c.Hosts))
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	plan := loadPlan(t, c, leinaoSeed(t))
	r := runSlurm(t, plan, 4*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
		t.Fatalf("final = %+v", r.final)
	}
	topo := r.topology(t)
	addrs := taskAddrs(plan.Job, topo)
	checkSpread(t, c, addrs)
	used := map[string]bool{}
	for _, a := range addrs {
		used[a] = true
	}
	if len(used) != 4 {
		t.Errorf("tasks on %d hosts, want one per node (4): %v", len(used), addrs)
	}
	for _, role := range plan.Job.Roles {
		for i := 0; i < role.Instances; i++ {
			p := parseProbe(t, fmt.Sprintf("%s-%d", role.Name, i), r.taskLog(t, role.Name, i))
			checkLeinaoTask(t, plan, topo, role.Name, i, p, repoRoot())
			if node := p.env["SLURMD_NODENAME"]; c.Hosts[node] != addrs[fmt.Sprintf("%s-%d", role.Name, i)] {
				t.Errorf("%s-%d: contract address %s, but it ran on %s (%s)", role.Name, i, addrs[fmt.Sprintf("%s-%d", role.Name, i)], node, c.Hosts[node])
			}
		}
	}
}
