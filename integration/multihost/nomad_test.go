package multihost_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/internal/drivertest"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// helperBinary builds the jobshift binary of the code under test for the
// in-job finisher tasks: the one cluster.sh built at `up` time may be of
// another revision. The temporary directory is seen by every host.
func helperBinary(t *testing.T) string {
	t.Helper()
	return drivertest.Jobshift(t)
}

func nomadClient(t *testing.T, c *cluster) *api.Client {
	t.Helper()
	cfg := api.DefaultConfig()
	cfg.Address = c.Env["NOMAD_ADDR"]
	cl, err := api.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// runNomad submits a plan under a fresh job ID and follows it to its end;
// the job is purged afterwards and must have left no allocation running.
func runNomad(t *testing.T, c *cluster, plan *translate.Plan, timeout time.Duration) (*drivers.Result, string) {
	t.Helper()
	cl := nomadClient(t, c)
	id := plan.Options["id"] // a caller that watches the job itself names it
	if id == "" {
		id = fmt.Sprintf("mh-%s-%d", plan.Job.Name, time.Now().UnixNano()%1e9)
		plan.Options["id"] = id
	}
	// raw_exec tasks run in the repository (every host sees it at this path)
	plan.Options[nomad.OptWorkDir] = repoRoot()
	if plan.Site != nil && plan.Site.Nomad != nil && plan.Site.Nomad.Helper != "" {
		plan.Options[nomad.OptHelper] = helperBinary(t)
	}
	if plan.Site != nil && plan.Site.Nomad != nil && plan.Site.Nomad.EnvHelper != "" {
		plan.Options[nomad.OptEnvHelper] = drivertest.JobshiftEnv(t)
	}
	d, err := drivers.New(nomad.TargetHCL, drivers.Config{Site: plan.Site})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	plan.Options[nomad.OptWatched] = "true" // watched below, as jobshift run does
	h, err := d.Submit(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logNomadTasks(t, cl, id)
		}
		checkNomadNothingLeft(t, cl, id)
		_, _, _ = cl.Jobs().Deregister(id, true, nil)
	})
	events, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	var final *drivers.Result
	for e := range events {
		if e.Task != nil {
			t.Logf("%s-%d %s %d %s", e.Task.Role, e.Task.Index, e.State, e.ExitCode, e.Message)
		}
		if e.Final != nil {
			final = e.Final
		}
	}
	if final == nil {
		t.Fatalf("job %s: no result within %s", id, timeout)
	}
	return final, id
}

// logNomadTasks logs, for every task of every allocation of the job (the
// main task, a UAI node's parameter server, the finisher and judge), its
// state, its events and its stderr, so that a failed run says which task
// ended when and why.
func logNomadTasks(t *testing.T, cl *api.Client, id string) {
	t.Helper()
	for _, nt := range nomadTasks(t, cl, id) {
		for name, ts := range nt.alloc.TaskStates {
			var events []string
			for _, e := range ts.Events {
				events = append(events, fmt.Sprintf("%s %s: %s", time.Unix(0, e.Time).Format("15:04:05.000"), e.Type, e.DisplayMessage))
			}
			var stderr []byte
			if rc, err := cl.AllocFS().Cat(nt.alloc, "alloc/logs/"+name+".stderr.0", nil); err == nil {
				stderr, _ = io.ReadAll(rc)
				rc.Close()
			}
			t.Logf("%s %s (%s, failed %v): events %q\nstderr:\n%s", nt.alloc.Name, name, ts.State, ts.Failed, events, stderr)
		}
	}
}

// checkNomadNothingLeft: every allocation of the job ended (the never-ending
// roles were stopped), waiting a little for clients to report.
func checkNomadNothingLeft(t *testing.T, cl *api.Client, id string) {
	t.Helper()
	var live []string
	for try := 0; try < 60; try++ {
		allocs, _, err := cl.Jobs().Allocations(id, true, nil)
		if err != nil {
			t.Errorf("allocations of %s: %v", id, err)
			return
		}
		live = nil
		for _, a := range allocs {
			if a.ClientStatus == "running" || a.ClientStatus == "pending" {
				live = append(live, a.Name+" "+a.ClientStatus)
			}
		}
		if len(live) == 0 {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Errorf("job %s: allocations left running: %v", id, live)
}

// nomadTask is one allocation of a finished job.
type nomadTask struct {
	role  string
	index int
	alloc *api.Allocation
}

// runNomadPlaced runs plan on the cluster to success (exit code 0) and
// returns where every task ran, after checking each task ran on the
// node its topology names (checkNodes).
func runNomadPlaced(t *testing.T, c *cluster, cl *api.Client, plan *translate.Plan) ([]nomadTask, contract.Topology) {
	t.Helper()
	res, id := runNomad(t, c, plan, 4*time.Minute)
	if res.Phase != completion.PhaseSucceeded || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	tasks := nomadTasks(t, cl, id)
	topo := nomadTopology(plan, id, tasks)
	checkNodes(t, c, cl, plan, topo, tasks)
	return tasks, topo
}

func nomadTasks(t *testing.T, cl *api.Client, id string) []nomadTask {
	t.Helper()
	stubs, _, err := cl.Jobs().Allocations(id, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []nomadTask
	for _, s := range stubs {
		a, _, err := cl.Allocations().Info(s.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		var idx int
		fmt.Sscanf(a.Name[strings.LastIndexByte(a.Name, '['):], "[%d]", &idx)
		out = append(out, nomadTask{role: a.Job.LookupTaskGroup(a.TaskGroup).Meta[nomad.MetaRole], index: idx, alloc: a})
	}
	return out
}

// nomadTopology is where every task really ran: its client's address and
// the ports Nomad allocated, mapped to the contract's labels.
func nomadTopology(p *translate.Plan, id string, tasks []nomadTask) contract.Topology {
	svcs := contract.NomadServicesFor(p.Job, id, contract.Options{User: p.User, Contracts: p.Contracts})
	topo := contract.Topology{}
	for _, r := range p.Job.Roles {
		topo.Roles = append(topo.Roles, contract.RoleTopology{Name: r.Name, Tasks: make([]contract.TaskTopology, r.Instances)})
	}
	for _, nt := range tasks {
		for k := range topo.Roles {
			if topo.Roles[k].Name != nt.role {
				continue
			}
			tt := contract.TaskTopology{Ports: map[string][]int{}}
			for _, port := range nt.alloc.AllocatedResources.Shared.Ports {
				tt.Addr = port.HostIP
				for _, s := range svcs {
					if s.Role == nt.role && s.PortLabel == port.Label {
						tt.Ports[s.Label] = append(tt.Ports[s.Label], port.Value)
					}
				}
			}
			if tt.Addr == "" && len(nt.alloc.AllocatedResources.Shared.Networks) > 0 {
				tt.Addr = nt.alloc.AllocatedResources.Shared.Networks[0].IP
			}
			topo.Roles[k].Tasks[nt.index] = tt
		}
	}
	return topo
}

// checkNodes: each task's contract address is the address of the client it
// ran on, and the job spread over the hosts.
func checkNodes(t *testing.T, c *cluster, cl *api.Client, p *translate.Plan, topo contract.Topology, tasks []nomadTask) {
	t.Helper()
	addrs := map[string]string{}
	for _, nt := range tasks {
		node, _, err := cl.Nodes().Info(nt.alloc.NodeID, nil)
		if err != nil {
			t.Fatal(err)
		}
		task := fmt.Sprintf("%s-%d", nt.role, nt.index)
		for k := range topo.Roles {
			if topo.Roles[k].Name == nt.role {
				addrs[task] = topo.Roles[k].Tasks[nt.index].Addr
			}
		}
		if c.Hosts[node.Name] != addrs[task] {
			t.Errorf("%s: contract address %s, but it ran on %s (address %s)", task, addrs[task], node.Name, c.Hosts[node.Name])
		}
	}
	checkSpread(t, c, addrs)
}

// catAlloc reads a file of an allocation through the API (the server
// forwards to the client on its host).
func catAlloc(t *testing.T, cl *api.Client, a *api.Allocation, path string) string {
	t.Helper()
	rc, err := cl.AllocFS().Cat(a, path, nil)
	if err != nil {
		t.Fatalf("%s: %s: %v", a.Name, path, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNomadExamples: the examples succeed on raw_exec with their tasks spread
// over the clients (mesh.py reaches every peer's ports across hosts), and
// the environment the contract template rendered on each client equals the
// oracle's for the real addresses and ports (and, for the training-operator
// kinds, the one their processes printed).
func TestNomadExamples(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	for _, f := range []string{"pai-v1-ps-worker.json", "tfjob-mesh.yaml", "pai-v2-ddp.yaml", "paddlejob-collective.yaml", "jaxjob-coordinator.yaml", "mxjob-ps.yaml"} {
		t.Run(f, func(t *testing.T) {
			plan := loadPlan(t, c, filepath.Join("examples", f))
			tasks, topo := runNomadPlaced(t, c, cl, plan)
			for _, nt := range tasks {
				want, err := contract.Eval(plan.Job, topo, jobs.TaskRef{Role: nt.role, Index: nt.index}, contract.Options{User: plan.User, Contracts: plan.Contracts})
				if err != nil {
					t.Fatal(err)
				}
				got := drivertest.ReadEnvFile(t, io.NopCloser(strings.NewReader(catAlloc(t, cl, nt.alloc, "main/local/jobshift.env"))))
				for _, v := range want {
					if v.Name == contract.WorkDirVar {
						continue // exported by the task itself
					}
					if g, ok := got[v.Name]; !ok || g != v.Value {
						t.Errorf("%s: %s = %q, oracle %q", nt.alloc.Name, v.Name, g, v.Value)
					}
				}
			}
			if kindExample[f] {
				checkNomadPrintedEnv(t, cl, plan, topo, tasks)
			}
		})
	}
}

// TestNomadEnvMatchesOracle: every task's real process environment (env -0
// on stdout) holds exactly the oracle's variables, whether the task
// evaluated it itself (the cluster's site: jobshift-env on every client)
// or, on a site without the helpers, sourced it from its template's file
// (drivers/nomad shellenv.go).
func TestNomadEnvMatchesOracle(t *testing.T) {
	c := need(t, "nomad")
	cl := nomadClient(t, c)
	for _, f := range []string{"integration/slurm/testdata/env-pai.yaml", "integration/slurm/testdata/env-tf.yaml",
		"integration/slurm/testdata/env-xgboost.yaml", "integration/slurm/testdata/env-paddle-ps.yaml", "integration/slurm/testdata/env-jax.yaml", "integration/slurm/testdata/env-mxnet.yaml",
		"integration/slurm/testdata/env-trainjob.yaml"} {
		t.Run("in-task/"+filepath.Base(f), func(t *testing.T) { nomadEnvMatchesOracle(t, c, cl, f, false) })
	}
	// the PAI job alone (every host list and port of its two roles): the
	// suite's time is near CI's budget on slow machines
	f := "integration/slurm/testdata/env-pai.yaml"
	t.Run("sourced/"+filepath.Base(f), func(t *testing.T) { nomadEnvMatchesOracle(t, c, cl, f, true) })
}

func nomadEnvMatchesOracle(t *testing.T, c *cluster, cl *api.Client, f string, sourced bool) {
	t.Helper()
	plan := loadPlan(t, c, f)
	if sourced {
		site := *plan.Site
		nc := *site.Nomad
		nc.Helper, nc.EnvHelper = "", ""
		site.Nomad = &nc
		plan.Site = &site
	}
	drivertest.LingerAfter(plan, 20) // dump-and-exit tasks: see LingerAfter
	tasks, topo := runNomadPlaced(t, c, cl, plan)
	// raw_exec and Slurm tasks run under the task view, where a
	// TrainJob's master name resolves
	opts := contract.Options{User: plan.User, Contracts: plan.Contracts, HostNames: contract.NamesRole(plan.Job) != ""}
	all, err := contract.EvalAll(plan.Job, topo, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, nt := range tasks {
		env := parseEnv0(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
		want, err := contract.Eval(plan.Job, topo, jobs.TaskRef{Role: nt.role, Index: nt.index}, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkNoOtherNames(t, nt.alloc.Name, env, want, all)
		got := map[string]string{}
		for _, v := range want {
			got[v.Name] = env[v.Name]
		}
		wm := want.Map()
		if wd, ok := wm[contract.WorkDirVar]; ok && wd == "" {
			wm[contract.WorkDirVar] = repoRoot()
		}
		if d := cmp.Diff(wm, got); d != "" {
			t.Errorf("%s: contract (-oracle +task):\n%s", nt.alloc.Name, d)
		}
		if _, _, err := cl.AllocFS().Stat(nt.alloc, nomad.MainTask+"/"+nomad.ShellEnvFile, nil); (err == nil) != sourced {
			t.Errorf("%s: environment sourced from a file: %v, want %v", nt.alloc.Name, err == nil, sourced)
		}
	}
}

// TestNomadDDPTorch: PyTorch DDP (gloo, CPU) trains across the clients,
// every rank ending with the same parameters.
func TestNomadDDPTorch(t *testing.T) {
	c := need(t, "nomad")
	if !haveTorch(t) {
		t.Skip("python3-torch not installed")
	}
	cl := nomadClient(t, c)
	// raw_exec tasks inherit their client's PATH; Debian's python3-torch is
	// for /usr/bin/python3 (a site would set this rule the same way)
	site := *c.Site
	site.Roles = append([]siteconfig.RoleRule{{Pattern: "*", Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}}}, site.Roles...)
	torch := &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
	// trainjob-torch.yaml: TestTrainJobExamplesNomad
	for _, f := range []string{"pytorchjob-ddp.yaml", "pai-v2-ddp-torch.yaml"} {
		t.Run(f, func(t *testing.T) {
			plan := loadPlan(t, torch, filepath.Join("examples", f))
			res, id := runNomad(t, c, plan, 5*time.Minute)
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			tasks := nomadTasks(t, cl, id)
			var logs strings.Builder
			for _, nt := range tasks {
				logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
			}
			checkChecksums(t, logs.String())
			checkNodes(t, c, cl, plan, nomadTopology(plan, id, tasks), tasks)
		})
	}
}

// TestNomadXGBoost: the XGBoostJob example trains with XGBoost's collective
// across the clients, every rank ending with the same model, every process
// given exactly the oracle's variables.
func TestNomadXGBoost(t *testing.T) {
	c := need(t, "nomad")
	if !haveModule(t, "xgboost") {
		t.Skip("python3-xgboost not installed")
	}
	cl := nomadClient(t, c)
	site := *c.Site
	site.Roles = append([]siteconfig.RoleRule{{Pattern: "*", Env: map[string]string{"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}}}, site.Roles...)
	xgb := &cluster{Engine: c.Engine, Env: c.Env, Hosts: c.Hosts, Site: &site}
	plan := loadPlan(t, xgb, filepath.Join("examples", "xgboostjob-iris.yaml"))
	res, id := runNomad(t, c, plan, 5*time.Minute)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result %+v", res)
	}
	tasks := nomadTasks(t, cl, id)
	var logs strings.Builder
	for _, nt := range tasks {
		logs.WriteString(catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0"))
	}
	checkChecksums(t, logs.String())
	checkNomadPrintedEnv(t, cl, plan, nomadTopology(plan, id, tasks), tasks)
}

// checkNomadPrintedEnv: every task printed (drivertest.PrintedEnv) exactly
// the oracle's variables for the clients and ports Nomad gave.
func checkNomadPrintedEnv(t *testing.T, cl *api.Client, plan *translate.Plan, topo contract.Topology, tasks []nomadTask) {
	t.Helper()
	opts := contract.Options{User: plan.User, Contracts: plan.Contracts}
	for _, nt := range tasks {
		out := catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
		drivertest.CheckPrintedEnv(t, plan.Job, topo, opts, jobs.TaskRef{Role: nt.role, Index: nt.index}, out)
	}
}
