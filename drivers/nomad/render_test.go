package nomad

import (
	"context"
	"flag"
	"fmt"
	"github.com/hashicorp/nomad/api"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/drivers/nomad/intask"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
)

var update = flag.Bool("update", false, "rewrite golden files")

func plan(j *jobs.Job, site *siteconfig.Config) *translate.Plan {
	if site == nil {
		site = &siteconfig.Config{}
	}
	return &translate.Plan{Job: j, Site: site, User: "alice", Options: map[string]string{}}
}

func rawExecSite() *siteconfig.Config {
	return &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: "raw_exec", CPUMHzPerCore: 100, Datacenters: []string{"dc1"}, BarrierTimeout: "2m"}}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func render(t *testing.T, asJSON bool, p *translate.Plan) []byte {
	t.Helper()
	d, _ := New(drivers.Config{Site: p.Site}, asJSON)
	art, err := d.WithContract(fixtureContract{}).Render(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return art.Files[0].Data
}

func TestRenderGolden(t *testing.T) {
	cases := map[string]*translate.Plan{
		"ps-worker-raw_exec": plan(psWorker("mesh", `python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST`), rawExecSite()),
		"ps-worker-docker":   plan(psWorker("mesh", `python3 mesh.py`), nil),
		"interpolated":       plan(psWorker("x y/z", `echo ${HOME} '{{ "x" }}' %{x}`), rawExecSite()),
	}
	for name, p := range cases {
		golden(t, name+".nomad.hcl", render(t, false, p))
		golden(t, name+".nomad.json", render(t, true, p))
	}
}

func TestRenderErrors(t *testing.T) {
	gpuless := psWorker("x", "true")
	gpuless.Roles[0].Command = jobs.Command{Kind: jobs.CommandArgv, Args: []string{"${X}"}, Pos: jobs.Pos{File: "j.yaml", Line: 3, Col: 5}}
	noImage := psWorker("x", "true")
	noImage.Roles[1].Image = ""
	cases := map[string]struct {
		p    *translate.Plan
		want string
	}{
		"entrypoint-with-interpolated-args": {plan(gpuless, nil), "Command cannot run on Nomad"},
		"docker-without-image":              {plan(noImage, nil), "No image"},
		"bad-barrier-timeout": {plan(psWorker("x", "true"), &siteconfig.Config{Nomad: &siteconfig.NomadConfig{BarrierTimeout: "soon"}}),
			"Invalid barrier_timeout"},
	}
	for name, c := range cases {
		_, diags := BuildJob(c.p, fixtureContract{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: want error %q, got %v", name, c.want, diags)
		}
	}
}

func TestRenderRealContract(t *testing.T) {
	// The real contract (translate/contract) renders the same job; its
	// text is that package's to test, here only that it is placed.
	j := psWorker("mesh", "true")
	j.Contracts = []string{jobs.ContractPAI}
	for _, r := range j.Roles {
		r.Ports = append(r.Ports, jobs.Port{Label: "http", Count: 1, Implicit: true}, jobs.Port{Label: "ssh", Count: 1, Implicit: true})
	}
	job, diags := BuildJob(plan(j, rawExecSite()), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tmpl := *job.TaskGroups[1].Tasks[1].Templates[0].EmbeddedTmpl
	if !strings.Contains(tmpl, "PAI_TASK_ROLE_ps_HOST_LIST") {
		t.Errorf("worker env template lacks the pai contract:\n%s", tmpl)
	}
}

func TestNames(t *testing.T) {
	cases := map[string][2]string{
		"plain":    {JobID("mesh"), "mesh"},
		"pai":      {JobID("alice~mesh job.v1"), "alice-mesh-job-v1"},
		"service":  {ServiceName("Job_1", "PS"), "job-1-ps"},
		"long-svc": {ServiceName(strings.Repeat("a", 80)), strings.Repeat("a", 54) + "-" + "d1b0a1d0"},
	}
	for name, c := range cases {
		if name == "long-svc" {
			if len(c[0]) > 63 || !strings.HasPrefix(c[0], strings.Repeat("a", 54)+"-") {
				t.Errorf("%s: %q", name, c[0])
			}
			continue
		}
		if c[0] != c[1] {
			t.Errorf("%s: got %q want %q", name, c[0], c[1])
		}
	}
}

// uaiJob is a 3-node UAI Train job: one role, two declared ports per node
// (the uai contract: the first is the parameter server's).
func uaiJob() *jobs.Job {
	return &jobs.Job{Name: "uai", Source: jobs.Source{Format: jobs.FormatPAIv2, Path: "uai.yaml"},
		Contracts: []string{jobs.ContractUAI},
		Roles: []*jobs.Role{{Name: "train", Instances: 3, Image: "img",
			Command:   jobs.Command{Kind: jobs.CommandBashScript, Script: "python3 train.py\n"},
			Resources: jobs.Resources{CPUMilli: 1000, MemoryMiB: 256, GPU: 1},
			Ports:     []jobs.Port{{Label: "uai", Count: 2}}}},
		Completion: jobs.Completion{Kind: jobs.CompletionPAI}}
}

// TestRenderUAI: every allocation of a UAI job runs the training task
// (with the GPU) and a parameter-server task whose env template is
// the contract's ProcessPS rendering; the golden files hold the real
// contract's templates.
func TestRenderUAI(t *testing.T) {
	p := plan(uaiJob(), rawExecSite())
	p.Contracts = []string{jobs.ContractUAI}
	for _, asJSON := range []bool{false, true} {
		d, _ := New(drivers.Config{Site: p.Site}, asJSON)
		art, err := d.Render(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		ext := ".nomad.hcl"
		if asJSON {
			ext = ".nomad.json"
		}
		golden(t, "uai-raw_exec"+ext, art.Files[0].Data)
	}

	job, diags := BuildJob(p, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type taskSummary struct {
		Leader  bool
		GPUs    int
		TaskTyp string
	}
	got := map[string]taskSummary{}
	for _, task := range job.TaskGroups[0].Tasks {
		if task.Lifecycle != nil {
			continue
		}
		s := taskSummary{Leader: task.Leader, GPUs: len(task.Resources.Devices)}
		tmpl := *task.Templates[0].EmbeddedTmpl
		switch {
		// The template quotes the JSON inside a Go template string.
		case strings.Contains(tmpl, `\"task\":{\"type\":\"ps\",\"index\":" $me "}`):
			s.TaskTyp = "ps"
		case strings.Contains(tmpl, `{\"type\":\"master\",\"index\":0}`) && strings.Contains(tmpl, `{\"type\":\"worker\",\"index\":`):
			s.TaskTyp = "master/worker"
		}
		got[task.Name] = s
	}
	want := map[string]taskSummary{
		MainTask: {Leader: false, GPUs: 1, TaskTyp: "master/worker"},
		PSTask:   {Leader: false, GPUs: 0, TaskTyp: "ps"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UAI tasks (-want +got):\n%s", diff)
	}

	// With the in-job finisher no task leads the group either (the PS
	// stays until the job's verdict); a poststart task, not a sidecar (an
	// ended sidecar fails and kills the PS: finisher.go), judges once the
	// training task ended, the poststop finisher when the allocation is
	// torn down.
	ph := plan(uaiJob(), rawExecSite())
	ph.Contracts = []string{jobs.ContractUAI}
	ph.Options[OptHelper] = "/usr/local/bin/jobshift"
	jobH, diags := BuildJob(ph, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	type taskShape struct {
		Leader  bool
		Hook    string
		Sidecar bool
		Args    any
	}
	shapes := map[string]taskShape{}
	for _, task := range jobH.TaskGroups[0].Tasks {
		s := taskShape{Leader: task.Leader}
		if task.Lifecycle != nil {
			s.Hook, s.Sidecar = task.Lifecycle.Hook, task.Lifecycle.Sidecar
		}
		if task.Name == FinisherTask || task.Name == JudgeTask {
			s.Args = task.Config["args"]
		}
		shapes[task.Name] = s
	}
	wantShapes := map[string]taskShape{
		BarrierTask:  {Hook: "prestart"},
		MainTask:     {},
		PSTask:       {},
		JudgeTask:    {Hook: "poststart", Args: []string{"nomad-finish", "-after-main"}},
		FinisherTask: {Hook: "poststop", Args: []string{"nomad-finish"}},
	}
	if diff := cmp.Diff(wantShapes, shapes); diff != "" {
		t.Errorf("UAI with finisher: tasks (-want +got):\n%s", diff)
	}

	// With the pai contract before it, TF_CONFIG's per-node choice (a
	// template line of its own) must not trim the newline ending the
	// previous variable: that glued TF_CONFIG onto PAI_TASK_ROLE_INSTANCES
	// and the training task had no TF_CONFIG (seen on the dev agent).
	withPAI := uaiJob()
	withPAI.Roles[0].Ports = append(withPAI.Roles[0].Ports, jobs.Port{Label: "http", Count: 1, Implicit: true}, jobs.Port{Label: "ssh", Count: 1, Implicit: true})
	pp := plan(withPAI, rawExecSite())
	pp.Contracts = []string{jobs.ContractPAI, jobs.ContractUAI}
	jobPP, diags := BuildJob(pp, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, task := range jobPP.TaskGroups[0].Tasks {
		if task.Name == MainTask {
			if tmpl := *task.Templates[0].EmbeddedTmpl; !strings.Contains(tmpl, "\nTF_CONFIG=") || strings.Contains(tmpl, "\n{{- $c") {
				t.Errorf("pai+uai: a trimming line precedes TF_CONFIG:\n%s", tmpl)
			}
		}
	}

	// A one-node UAI job has no parameter server (and no TF_CONFIG).
	one := uaiJob()
	one.Roles[0].Instances = 1
	p1 := plan(one, rawExecSite())
	p1.Contracts = []string{jobs.ContractUAI}
	job1, diags := BuildJob(p1, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, task := range job1.TaskGroups[0].Tasks {
		if task.Name == PSTask || task.Leader {
			t.Errorf("one-node UAI job: unexpected task %q (leader %v)", task.Name, task.Leader)
		}
	}
}

// TestDockerSettings: container tasks add no capabilities unless the site
// asks (a stock client's allow_caps refuses OpenPAI's), a role rule
// replaces the block's list, and only tasks holding GPUs name the GPU
// runtime, which the site may leave to the client ("").
func TestDockerSettings(t *testing.T) {
	empty := ""
	custom := "nvidia-cdi"
	type want struct {
		psCaps, workerCaps []string
		psRuntime          any
		workerRuntime      any
	}
	cases := map[string]struct {
		site *siteconfig.Config
		want want
	}{
		"stock": {nil, want{workerRuntime: "nvidia"}},
		"caps for all": {&siteconfig.Config{Nomad: &siteconfig.NomadConfig{DockerCapAdd: []string{"IPC_LOCK"}}},
			want{psCaps: []string{"IPC_LOCK"}, workerCaps: []string{"IPC_LOCK"}, workerRuntime: "nvidia"}},
		"role replaces": {&siteconfig.Config{Nomad: &siteconfig.NomadConfig{DockerCapAdd: []string{"IPC_LOCK"}},
			Roles: []siteconfig.RoleRule{{Pattern: "worker", DockerCapAdd: []string{"SYS_ADMIN", "DAC_READ_SEARCH"}}, {Pattern: "ps", DockerCapAdd: []string{}}}},
			want{workerCaps: []string{"SYS_ADMIN", "DAC_READ_SEARCH"}, workerRuntime: "nvidia"}},
		"runtime left to the client": {&siteconfig.Config{Nomad: &siteconfig.NomadConfig{DockerGPURuntime: &empty}}, want{}},
		"runtime named":              {&siteconfig.Config{Nomad: &siteconfig.NomadConfig{DockerGPURuntime: &custom}}, want{workerRuntime: "nvidia-cdi"}},
	}
	for name, c := range cases {
		j := psWorker("x", "true")
		j.Roles[1].Resources.GPU = 2
		job, diags := BuildJob(plan(j, c.site), fixtureContract{})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", name, diags)
		}
		cfg := func(g int) map[string]any { return job.TaskGroups[g].Tasks[len(job.TaskGroups[g].Tasks)-1].Config }
		var got want
		for g, dst := range []*[]string{&got.psCaps, &got.workerCaps} {
			if caps, ok := cfg(g)["cap_add"]; ok {
				*dst = caps.([]string)
			}
		}
		got.psRuntime, got.workerRuntime = cfg(0)["runtime"], cfg(1)["runtime"]
		if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// leinaoJob is seed 000 as the PAI reader gives it: ps×2, worker×2 (2
// GPUs each), three LeinaoPAI ports per task.
func leinaoJob() *jobs.Job {
	role := func(name string, gpu int) *jobs.Role {
		return &jobs.Role{Name: name, Instances: 2, Image: "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
			Command:   jobs.Command{Kind: jobs.CommandEval, Script: "python mnist_replica.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST"},
			Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 1024, GPU: gpu},
			Ports:     []jobs.Port{{Label: contract.LeinaoLabel, Count: 3, Implicit: true}}}
	}
	return &jobs.Job{Name: "tensorflow-distributed", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao", Path: "leinao.json"},
		Contracts: []string{jobs.ContractLeinao}, Completion: jobs.Completion{Kind: jobs.CompletionPAI},
		Roles: []*jobs.Role{role("ps", 0), role("worker", 2)}}
}

// TestRenderLeinaoNetworks: LeinaoPAI's 10001-10003 are mapped by Docker
// (dynamic host ports, `to` = 1000x) on the docker driver; on raw_exec and
// exec the task runs in the host's network, so they are static ports
// 10001-10003 and no two allocations of the job may share a node.
func TestRenderLeinaoNetworks(t *testing.T) {
	type netSummary struct {
		Static, Dynamic []string // label=port, label->to
		DistinctHosts   bool
	}
	static := []string{"leinao_0=10001", "leinao_1=10002", "leinao_2=10003"}
	mapped := []string{"leinao_0->10001", "leinao_1->10002", "leinao_2->10003"}
	cases := map[string]struct {
		driver string
		want   netSummary
	}{
		"docker":   {"docker", netSummary{Dynamic: mapped}},
		"raw_exec": {"raw_exec", netSummary{Static: static, DistinctHosts: true}},
		"exec":     {"exec", netSummary{Static: static, DistinctHosts: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := plan(leinaoJob(), &siteconfig.Config{Nomad: &siteconfig.NomadConfig{Driver: tc.driver}})
			job, diags := BuildJob(p, nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, g := range job.TaskGroups {
				var got netSummary
				for _, pt := range g.Networks[0].ReservedPorts {
					got.Static = append(got.Static, fmt.Sprintf("%s=%d", pt.Label, pt.Value))
				}
				for _, pt := range g.Networks[0].DynamicPorts {
					got.Dynamic = append(got.Dynamic, fmt.Sprintf("%s->%d", pt.Label, pt.To))
				}
				for _, c := range job.Constraints {
					got.DistinctHosts = got.DistinctHosts || c.Operand == "distinct_hosts" && c.RTarget == "true"
				}
				if d := cmp.Diff(tc.want, got); d != "" {
					t.Errorf("group %s (-want +got):\n%s", *g.Name, d)
				}
			}
		})
	}
}

// TestRenderUAIWithoutPorts: UAI users declared no ports; the uai contract
// asks for two per node (label uai), so each group has two dynamic ports
// and a service per port, which the ps and training templates read.
func TestRenderUAIWithoutPorts(t *testing.T) {
	j := uaiJob()
	j.Roles[0].Ports = nil
	p := plan(j, rawExecSite())
	p.Contracts = []string{jobs.ContractUAI}
	job, diags := BuildJob(p, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	g := job.TaskGroups[0]
	var ports, services []string
	for _, pt := range g.Networks[0].DynamicPorts {
		ports = append(ports, pt.Label)
	}
	for _, s := range g.Services {
		services = append(services, s.PortLabel)
	}
	want := []string{"uai_0", "uai_1"}
	if d := cmp.Diff(want, ports); d != "" {
		t.Errorf("dynamic ports (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, services); d != "" {
		t.Errorf("service ports (-want +got):\n%s", d)
	}
	if len(job.Constraints) != 0 {
		t.Errorf("constraints %v, want none", job.Constraints)
	}
}

// TestRenderSpreadNodes: nomad.spread_nodes caps a job's allocations per
// client at ceil(tasks/N), counted across groups (job level), so a job of
// N tasks or more covers N clients; host networking keeps distinct_hosts.
func TestRenderSpreadNodes(t *testing.T) {
	cases := map[string]struct {
		job    *jobs.Job
		driver string
		nodes  int
		want   []api.Constraint
	}{
		"off":             {uaiJob(), "raw_exec", 0, nil},
		"3 tasks 3 nodes": {uaiJob(), "raw_exec", 3, []api.Constraint{{LTarget: "${node.unique.id}", Operand: "distinct_property", RTarget: "1"}}},
		"3 tasks 2 nodes": {uaiJob(), "raw_exec", 2, []api.Constraint{{LTarget: "${node.unique.id}", Operand: "distinct_property", RTarget: "2"}}},
		"one task":        {func() *jobs.Job { j := uaiJob(); j.Roles[0].Instances = 1; return j }(), "raw_exec", 3, nil},
		"host network":    {leinaoJob(), "raw_exec", 3, []api.Constraint{{Operand: "distinct_hosts", RTarget: "true"}}},
		"leinao bridged":  {leinaoJob(), "docker", 4, []api.Constraint{{LTarget: "${node.unique.id}", Operand: "distinct_property", RTarget: "1"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			site := rawExecSite()
			site.Nomad.Driver, site.Nomad.SpreadNodes = tc.driver, tc.nodes
			job, diags := BuildJob(plan(tc.job, site), nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var got []api.Constraint
			for _, c := range job.Constraints {
				got = append(got, *c)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("job constraints (-want +got):\n%s", d)
			}
		})
	}
}

// TestRenderMPIGolden: an MPIJob of every generation the reader supports
// (jobs/kubeflow/testdata/mpi_<gen>.yaml), raw_exec: the ssh emulation's
// wrapper and key templates, the launcher deciding completion, idle
// workers.
func TestRenderMPIGolden(t *testing.T) {
	for _, gen := range []string{"v1alpha1", "v1alpha2", "v1", "v2beta1"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "jobs", "kubeflow", "testdata", "mpi_"+gen+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		job, diags := kubeflow.Read(src, jobs.ReadOptions{Path: "mpi_" + gen + ".yaml"})
		if diags.HasErrors() {
			t.Fatalf("%s: %v", gen, diags)
		}
		p := plan(job, rawExecSite())
		golden(t, "mpi-"+gen+".nomad.hcl", render(t, false, p))
		golden(t, "mpi-"+gen+".nomad.json", render(t, true, p))
		if gen == "v2beta1" {
			// with the site's jobshift binary: the finisher, and the
			// sshkey prestart task that makes the key for plain nomad job run
			p.Options[OptHelper] = "/usr/local/bin/jobshift"
			golden(t, "mpi-"+gen+"-helper.nomad.hcl", render(t, false, p))
		}
	}
}

// TestRenderTaskLogs: nomad.task_logs = false disables log collection on
// every task of every group (each task would start its own logmon: the
// finisher and UAI's ps and judge too); unset or true renders no logs
// block, Nomad's default.
func TestRenderTaskLogs(t *testing.T) {
	off, on := false, true
	for name, tc := range map[string]struct {
		logs *bool
		want string // every task's logs block
	}{
		"unset": {nil, "none"},
		"true":  {&on, "none"},
		"false": {&off, "disabled"},
	} {
		t.Run(name, func(t *testing.T) {
			site := rawExecSite()
			site.Nomad.Helper = "/usr/local/bin/jobshift"
			site.Nomad.TaskLogs = tc.logs
			job, diags := BuildJob(plan(uaiJob(), site), nil)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			tasks := 0
			for _, g := range job.TaskGroups {
				for _, task := range g.Tasks {
					tasks++
					got := "none"
					if lc := task.LogConfig; lc != nil {
						got = fmt.Sprintf("%+v", *lc)
						if lc.Disabled != nil && *lc.Disabled && lc.MaxFiles == nil && lc.MaxFileSizeMB == nil && lc.Enabled == nil {
							got = "disabled"
						}
					}
					if got != tc.want {
						t.Errorf("group %s task %s: logs %s, want %s", *g.Name, task.Name, got, tc.want)
					}
				}
			}
			if tasks < 4 { // UAI: main, ps, judge, finish
				t.Errorf("only %d tasks rendered", tasks)
			}
		})
	}
}

// TestRenderTrainJobGolden: Kubeflow Trainer v2 TrainJobs, one per ML
// policy, as `jobshift run -to nomad` submits them on raw_exec with the
// site's jobshift binary (nomad.helper: the in-task finisher, the step
// order of dependsOn Complete): torch and xgboost on their built-in
// runtimes, mpi with the launcher as a node, jax-distributed (built in),
// plain, and a dataset initializer step before the trainer. The real
// contract renders the ML policy's variables (translate/contract
// trainer.go), so the goldens hold their values.
func TestRenderTrainJobGolden(t *testing.T) {
	examples, testdata := filepath.Join("..", "..", "examples"), filepath.Join("..", "..", "jobs", "trainer", "testdata")
	cases := map[string]string{
		"trainjob-torch":       filepath.Join(examples, "trainjob-torch.yaml"),
		"trainjob-mpi":         filepath.Join(examples, "trainjob-mpi.yaml"),
		"trainjob-xgboost":     filepath.Join(examples, "trainjob-xgboost.yaml"),
		"trainjob-initializer": filepath.Join(examples, "trainjob-initializer.yaml"),
		"trainjob-jax":         filepath.Join(testdata, "trainjob-jax.yaml"),
		"trainjob-plain":       filepath.Join(testdata, "trainjob-plain.yaml"),
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := load.Load(path, jobs.ReadOptions{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p := plan(job, rawExecSite())
			p.Options[OptHelper] = "/usr/local/bin/jobshift"
			p.Options[OptWatched] = "true"
			for _, asJSON := range []bool{false, true} {
				d, _ := New(drivers.Config{Site: p.Site}, asJSON)
				art, err := d.Render(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				ext := ".nomad.hcl"
				if asJSON {
					ext = ".nomad.json"
				}
				golden(t, name+ext, art.Files[0].Data)
			}
			golden(t, name+".env.txt", []byte(inTaskEnvs(t, p)))
		})
	}
}

// inTaskEnvs lists, for the first and last task of every role, the
// contract variables nomad-env gives its main task (the payload in the
// rendered env block, evaluated on the snapshot the coordinator writes
// for contract.SampleTopology's placements), one NAME=VALUE a line: what
// the HCL's JOBSHIFT_TASK_ENV means, in a form to check by hand.
func inTaskEnvs(t *testing.T, p *translate.Plan) string {
	t.Helper()
	job, diags := BuildJob(p, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	topo := contract.SampleTopologyFor(p.Job, ContractOptions(p))
	co := &coordinator{groups: snapGroups(job), attempt: 0}
	items, missing := co.build(placementsOf(p.Job, JobIDFor(p), ContractOptions(p), topo))
	if missing != "" {
		t.Fatalf("placements miss %s", missing)
	}
	var b strings.Builder
	for k, role := range p.Job.Roles {
		for _, task := range job.TaskGroups[k].Tasks {
			if task.Name != MainTask {
				continue
			}
			te, err := intask.Decode(task.Env[TaskEnvVar])
			if err != nil {
				t.Fatalf("%s: %v", role.Name, err)
			}
			for _, i := range slices.Compact([]int{0, role.Instances - 1}) {
				vars, err := te.Vars(i, items, func(string) string { return "" })
				if err != nil {
					t.Fatalf("%s-%d: %v", role.Name, i, err)
				}
				var lines []string
				if len(vars) == 0 {
					lines = append(lines, fmt.Sprintf("%s-%d: (none)", role.Name, i))
				}
				for _, v := range vars {
					lines = append(lines, fmt.Sprintf("%s-%d: %s=%s", role.Name, i, v.Name, v.Value))
				}
				sort.Strings(lines)
				for _, l := range lines {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	return b.String()
}
