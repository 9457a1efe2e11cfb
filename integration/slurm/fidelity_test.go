package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/slurm"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// TestUAISeedShape: the UAI Train seed's shape (one role of 4 nodes, the
// uai contract added with -contract, no ports declared: UAI users never
// declared any) succeeds 5 times in a row. Every node runs a ps and a
// training process (integration/testdata/uai_node.py); the master reaches the
// parameter servers only after the other training processes have ended,
// so every node's ps must live until the verdict.
func TestUAISeedShape(t *testing.T) {
	needCluster(t)
	prog := filepath.Join(repoRoot(), "integration", "testdata", "uai_node.py")
	for run := range 5 {
		t.Run(fmt.Sprint(run), func(t *testing.T) {
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
    resourcePerInstance: {cpu: 1, memoryMB: 256, gpu: 0}
    commands:
      - python3 %s
`, prog)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			j, diags := load.Load(path, jobs.ReadOptions{Path: path})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			plan, diags := translate.Build(j, &siteconfig.Config{}, []string{"uai"}, "ci")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			plan.Options = map[string]string{"state_dir": t.TempDir(), "submit_dir": dir}
			r := submit(t, plan, 3*time.Minute)
			if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
				t.Fatalf("final = %+v", r.final)
			}
			adir := filepath.Join(r.state, "attempt-1")
			for i := range 4 {
				b, err := os.ReadFile(filepath.Join(adir, fmt.Sprintf("node-%d.out", i)))
				if err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(string(b), "reached ps"); n != 4 {
					t.Errorf("node %d: training process reached %d parameter servers, want 4:\n%s", i, n, b)
				}
				if !strings.Contains(string(b), fmt.Sprintf("ps %d serving on", i)) {
					t.Errorf("node %d: its parameter server never served:\n%s", i, b)
				}
			}
			// the ports came from the contract, not the file: two per node
			topo := readTopology(t, r.job, contract.Options{User: plan.User, Contracts: plan.Contracts}, adir)
			for i, tt := range topo.Roles[0].Tasks {
				if ps := tt.Ports[contract.UAILabel]; len(ps) != 2 || ps[0] == ps[1] {
					t.Errorf("node %d: uai ports %v, want two distinct ports", i, ps)
				}
			}
		})
	}
}

// leinaoSeed is seed 000's job (ps×2 CPU-only, worker×2 with 2 GPUs each,
// LeinaoPAI registry image) with cmd as every role's command.
func leinaoSeed(t *testing.T, dir, name string, ps, workers int, cmd string) *translate.Plan {
	t.Helper()
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(cmd)
	src := fmt.Sprintf(`{
  "jobName": %q,
  "image": "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
  "taskRoles": [
    {"name": "ps", "taskNumber": %d, "cpuNumber": 2, "memoryMB": 1024, "gpuNumber": 0,
     "minSucceededTaskCount": %d, "minFailedTaskCount": 1, "command": "%s"},
    {"name": "worker", "taskNumber": %d, "cpuNumber": 2, "memoryMB": 1024, "gpuNumber": 2,
     "minSucceededTaskCount": %d, "minFailedTaskCount": 1, "command": "%s"}
  ],
  "retryCount": 0
}`, name, ps, ps, esc, workers, workers, esc)
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	j, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if j.Source.Dialect != "leinao" {
		t.Fatalf("dialect %q, want leinao", j.Source.Dialect)
	}
	plan, diags := translate.Build(j, &siteconfig.Config{}, nil, "ci")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan.Options = map[string]string{"state_dir": t.TempDir(), "submit_dir": dir}
	return plan
}

// TestLeinaoOnePerNode: the LeinaoPAI seed job runs on Slurm in the host's
// network: every task alone on its node, PAI_PORT_MAP_1000x = 1000x,
// PAI_PORT_LIST_<r>_<i> = ip,10001,10002,10003, the whole environment equal
// to the oracle's for the allocation Slurm gave, and the YARN-era names
// (PAI_USER_NAME) there too.
func TestLeinaoOnePerNode(t *testing.T) {
	needCluster(t)
	dir := t.TempDir()
	// The workers' success ends the job and stops the ps tasks (PAI's
	// minSucceeded rule), so a worker waits (at most a minute) for both ps
	// files: a ps task that started later than the workers ended was
	// stopped before it wrote its environment.
	plan := leinaoSeed(t, dir, "leinao-env", 2, 2, `env -0 > "$PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX.env.tmp" && `+
		`mv "$PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX.env.tmp" "$PAI_CURRENT_TASK_ROLE_NAME-$PAI_TASK_INDEX.env" && `+
		`n=0; while [ "$PAI_CURRENT_TASK_ROLE_NAME" = worker ] && ! { [ -e ps-0.env ] && [ -e ps-1.env ]; } && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done`)
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
	opts := contract.Options{User: plan.User, Contracts: plan.Contracts}
	topo := readTopology(t, r.job, opts, filepath.Join(r.state, "attempt-1"))
	nodes := map[string]string{}
	for k, role := range r.job.Roles {
		for i := range role.Instances {
			task := fmt.Sprintf("%s-%d", role.Name, i)
			env := readEnv(t, filepath.Join(dir, task+".env"))
			want, err := contract.Eval(r.job, topo, jobs.TaskRef{Role: role.Name, Index: i}, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, v := range want {
				got[v.Name] = env[v.Name]
			}
			if d := cmp.Diff(want.Map(), got); d != "" {
				t.Errorf("%s: contract (-oracle +task):\n%s", task, d)
			}
			// the platform's rule, written out by hand
			addr := topo.Roles[k].Tasks[i].Addr
			for name, v := range map[string]string{
				"PAI_PORT_MAP_10001":                             "10001",
				"PAI_PORT_MAP_10002":                             "10002",
				"PAI_PORT_MAP_10003":                             "10003",
				fmt.Sprintf("PAI_PORT_LIST_%s_%d", role.Name, i): addr + ",10001,10002,10003",
				"PAI_CURRENT_CONTAINER_IP":                       addr,
				"PAI_USER_NAME":                                  "ci",
				"PAI_JOB_NAME":                                   "ci~leinao-env",
			} {
				if env[name] != v {
					t.Errorf("%s: %s=%q, want %q", task, name, env[name], v)
				}
			}
			node := env["SLURMD_NODENAME"]
			if other, dup := nodes[node]; dup {
				t.Errorf("%s and %s both ran on node %s", task, other, node)
			}
			nodes[node] = task
			if a := nodeAddr(t, node); addr != a {
				t.Errorf("%s: address %s, but node %s has NodeAddr %s", task, addr, node, a)
			}
		}
	}
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// TestLeinaoPeersOnAllPorts: the seed job, every task binding 10001-10003
// in its node's network and reaching every peer on all three ports
// (integration/testdata/leinao_peer.py). Tasks
// on different nodes bind the same port numbers, which needs nodes with
// distinct addresses: on a cluster whose nodes share one address (the
// single-host test cluster: slurmd -N n1..n4 all on 127.0.0.1) the test
// skips; scripts/cluster.sh clusters have distinct hosts.
func TestLeinaoPeersOnAllPorts(t *testing.T) {
	needCluster(t)
	out, err := exec.Command("scontrol", "show", "node", "-o").Output()
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, a, ok := strings.Cut(l, " NodeAddr="); ok {
			a, _, _ = strings.Cut(a, " ")
			addrs[a] = true
		}
	}
	if len(addrs) < 4 {
		t.Skipf("the cluster's nodes have %d distinct address(es); 4 LeinaoPAI tasks binding 10001-10003 need 4 hosts (run on a scripts/cluster.sh cluster)", len(addrs))
	}
	prog := filepath.Join(repoRoot(), "integration", "testdata", "leinao_peer.py")
	plan := leinaoSeed(t, t.TempDir(), "leinao-peers", 2, 2, "python3 "+prog)
	r := submit(t, plan, 3*time.Minute)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("final = %+v", r.final)
	}
}

// TestLeinaoTooFewNodes: a LeinaoPAI job with more tasks than the cluster
// has nodes cannot have one task per node: sbatch refuses it at once and
// the error says why.
func TestLeinaoTooFewNodes(t *testing.T) {
	needCluster(t)
	out, err := exec.Command("sinfo", "-h", "-N", "-o", "%N").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := len(strings.Fields(string(out)))
	dir := t.TempDir()
	plan := leinaoSeed(t, dir, "leinao-big", 1, n, "true")
	d := slurm.New(drivers.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, plan)
	if err == nil {
		_ = d.Stop(context.Background(), h)
		t.Fatalf("a %d-task LeinaoPAI job was accepted on %d nodes", n+1, n)
	}
	if !errors.Is(err, slurm.ErrSubmit) || !strings.Contains(err.Error(), fmt.Sprintf("needs %d nodes, one per task", n+1)) {
		t.Fatalf("err = %v, want ErrSubmit saying the job needs %d nodes, one per task", err, n+1)
	}
}

// TestInShellLeavesNothing: in the roles without a supervisor the stage
// runs in the user's own bash (drivers/slurm insh.go); every task checks
// that nothing of it is left there (no function, no unexported variable a
// clean bash lacks) and that its trap for a stop is set; the job succeeds
// only if every task found its shell clean. The tasks ran in shell: the
// attempt has each role's insh.R.sh.
func TestInShellLeavesNothing(t *testing.T) {
	needCluster(t)
	for _, layout := range []string{"het", "packed"} {
		t.Run(layout, func(t *testing.T) {
			plan := loadPlan(t, "integration/slurm/testdata/insh-clean.yaml", map[string]string{"layout": layout})
			r := submit(t, plan, 2*time.Minute)
			adir := filepath.Join(r.state, "attempt-1")
			if r.final.Phase != completion.PhaseSucceeded {
				for _, f := range []string{"ps-0.err", "ps-1.err", "worker-0.err"} {
					b, _ := os.ReadFile(filepath.Join(adir, f))
					t.Logf("%s: %s", f, b)
				}
				t.Fatalf("final = %+v, want succeeded", r.final)
			}
			if _, err := os.Stat(filepath.Join(adir, "insh.0.sh")); err != nil {
				t.Fatalf("no in-shell program in the attempt: %v", err)
			}
		})
	}
}
