package contract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// The worked examples of the specs and seeds. Expected values are written
// by hand from the spec text; the full environments are golden files
// (reviewed against the spec, regenerated with -update).

func task(addr string, ports map[string][]int) TaskTopology {
	return TaskTopology{Addr: addr, Ports: ports}
}

// spec/pai.md §3.1.6.
func paiExample() (*jobs.Job, Topology) {
	ps := paiRole("ps", 1)
	w := paiRole("worker", 2, jobs.Port{Label: "SynPort", Count: 1})
	w.Resources = jobs.Resources{GPU: 1, CPUMilli: 4000, MemoryMiB: 8192}
	j := paiJob("mnist", ps, w)
	topo := Topology{Roles: []RoleTopology{
		{Name: "ps", Tasks: []TaskTopology{task("10.0.0.4", map[string][]int{"ssh": {20011}, "http": {20012}})}},
		{Name: "worker", Tasks: []TaskTopology{
			task("10.0.0.5", map[string][]int{"SynPort": {31234}, "ssh": {25678}, "http": {39876}}),
			task("10.0.0.6", map[string][]int{"SynPort": {31240}, "ssh": {25680}, "http": {39880}}),
		}},
	}}
	return j, topo
}

func TestPAIWorkedExample(t *testing.T) {
	j, topo := paiExample()
	env := mustEval(t, j, topo, "worker", 1, Options{User: "alice"})
	subset(t, env, map[string]string{
		"PAI_JOB_NAME":                             "alice~mnist",
		"PAI_TASK_ROLE_LIST":                       "ps,worker",
		"PAI_TASK_ROLE_TASK_COUNT_worker":          "2",
		"PAI_RESOURCE_worker":                      "1,4,8192,0",
		"PAI_MIN_FAILED_TASK_COUNT_worker":         "1",
		"PAI_MIN_SUCCEEDED_TASK_COUNT_worker":      "2",
		"PAI_CURRENT_TASK_ROLE_NAME":               "worker",
		"PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": "1",
		"PAI_TASK_INDEX":                           "1",
		"PAI_HOST_IP_ps_0":                         "10.0.0.4",
		"PAI_PORT_LIST_ps_0_ssh":                   "20011",
		"PAI_PORT_LIST_ps_0_http":                  "20012",
		"PAI_HOST_IP_worker_0":                     "10.0.0.5",
		"PAI_HOST_IP_worker_1":                     "10.0.0.6",
		"PAI_PORT_LIST_worker_0_SynPort":           "31234",
		"PAI_worker_0_SynPort_PORT":                "31234",
		"PAI_TASK_ROLE_ps_HOST_LIST":               "10.0.0.4:20012",
		"PAI_TASK_ROLE_worker_HOST_LIST":           "10.0.0.5:39876,10.0.0.6:39880",
		"PAI_TASK_ROLE_INSTANCES":                  "ps:0,worker:0,worker:1",
		"PAI_CONTAINER_HOST_PORT_LIST":             "SynPort:31240;ssh:25680;http:39880;",
		"PAI_CONTAINER_SSH_PORT":                   "25680",
		"PAI_CURRENT_CONTAINER_IP":                 "10.0.0.6",
	})
	golden(t, "pai-3.1.6-worker-1.env", envText(env))
}

func TestPAIRoleNameNormalisation(t *testing.T) {
	j := paiJob("tf", paiRole("ps_server", 1), paiRole("worker", 1))
	topo := SampleTopology(j)
	env := mustEval(t, j, topo, "ps_server", 0, Options{User: "bob"})
	subset(t, env, map[string]string{
		"PAI_TASK_ROLE_TASK_COUNT_ps_server": "1",
		"PAI_RESOURCE_ps_server":             "0,1,1024,0",
		"PAI_HOST_IP_psserver_0":             "10.0.0.1",
		"PAI_TASK_ROLE_psserver_HOST_LIST":   "10.0.0.1:20001",
		"PAI_CURRENT_TASK_ROLE_NAME":         "ps_server",
		"PAI_TASK_ROLE_INSTANCES":            "psserver:0,worker:0",
	})
	absent(t, env, "PAI_HOST_IP_ps_server_0", "PAI_TASK_ROLE_ps_server_HOST_LIST")

	// The YARN era used the names as given: both spellings with pai-yarn.
	env = mustEval(t, j, topo, "ps_server", 0, Options{User: "bob", Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn}})
	subset(t, env, map[string]string{
		"PAI_HOST_IP_psserver_0":              "10.0.0.1",
		"PAI_HOST_IP_ps_server_0":             "10.0.0.1",
		"PAI_TASK_ROLE_ps_server_HOST_LIST":   "10.0.0.1:20001",
		"PAI_PORT_LIST_ps_server_0_http":      "20001",
		"PAI_RESOURCE":                        "0,1,1024,0",
		"PAI_MIN_FAILED_TASK_COUNT_ps_server": "1",
		"PAI_TASK_ROLE_NUM":                   "1",
	})
}

// spec/kubeflow.md §2.4 with addresses in place of the k8s service names.
func tfExample() (*jobs.Job, Topology) {
	role := func(typ string, n int) *jobs.Role {
		return &jobs.Role{Name: typ, ReplicaType: typ, Instances: n,
			Ports: []jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true, Number: 2222}}}
	}
	// File order deliberately not alphabetical: the keys must come out sorted.
	j := &jobs.Job{Name: "mnist", Source: jobs.Source{Format: jobs.FormatTFJob}, Contracts: []string{jobs.ContractTF},
		Roles: []*jobs.Role{role("worker", 3), role("ps", 2), role("chief", 1), role("evaluator", 1)}}
	p := map[string][]int{"tfjob-port": {2222}}
	topo := Topology{Roles: []RoleTopology{
		{Name: "worker", Tasks: []TaskTopology{task("10.0.3.1", p), task("10.0.3.2", p), task("10.0.3.3", p)}},
		{Name: "ps", Tasks: []TaskTopology{task("10.0.2.1", p), task("10.0.2.2", p)}},
		{Name: "chief", Tasks: []TaskTopology{task("10.0.1.1", p)}},
		{Name: "evaluator", Tasks: []TaskTopology{task("10.0.4.1", p)}},
	}}
	return j, topo
}

func TestTFWorkedExample(t *testing.T) {
	j, topo := tfExample()
	cluster := `{"chief":["10.0.1.1:2222"],"evaluator":["10.0.4.1:2222"],"ps":["10.0.2.1:2222","10.0.2.2:2222"],"worker":["10.0.3.1:2222","10.0.3.2:2222","10.0.3.3:2222"]}`
	want := `{"cluster":` + cluster + `,"task":{"type":"worker","index":1},"environment":"cloud"}`
	env := mustEval(t, j, topo, "worker", 1, Options{})
	subset(t, env, map[string]string{"TF_CONFIG": want})
	if len(env) != 1 {
		t.Errorf("TFJob pods get only TF_CONFIG, got %v", env)
	}
	for _, tc := range []struct {
		role, task string
		i          int
	}{{"chief", "chief", 0}, {"ps", "ps", 0}, {"ps", "ps", 1}, {"worker", "worker", 0}, {"worker", "worker", 2}, {"evaluator", "evaluator", 0}} {
		env := mustEval(t, j, topo, tc.role, tc.i, Options{})
		subset(t, env, map[string]string{"TF_CONFIG": `{"cluster":` + cluster + `,"task":{"type":"` + tc.task + `","index":` + string(rune('0'+tc.i)) + `},"environment":"cloud"}`})
	}
	// Before v1.0.1 the evaluator was not part of the cluster.
	legacy := `{"cluster":{"chief":["10.0.1.1:2222"],"ps":["10.0.2.1:2222","10.0.2.2:2222"],"worker":["10.0.3.1:2222","10.0.3.2:2222","10.0.3.3:2222"]},"task":{"type":"evaluator","index":0},"environment":"cloud"}`
	subset(t, mustEval(t, j, topo, "evaluator", 0, Options{TFLegacyEvaluator: true}), map[string]string{"TF_CONFIG": legacy})
}

func TestTFSparseAndSingle(t *testing.T) {
	j, topo := tfExample()
	j.Completion.EnableDynamicWorker = true
	subset(t, mustEval(t, j, topo, "worker", 2, Options{}), map[string]string{
		"TF_CONFIG": `{"cluster":{"worker":{"2":"10.0.3.3:2222"},"ps":["10.0.2.1:2222","10.0.2.2:2222"]},"task":{"type":"worker","index":2}}`})
	subset(t, mustEval(t, j, topo, "ps", 1, Options{}), map[string]string{
		"TF_CONFIG": `{"cluster":{"worker":{},"ps":["10.0.2.2:2222"]},"task":{"type":"ps","index":1}}`})
	subset(t, mustEval(t, j, topo, "chief", 0, Options{}), map[string]string{
		"TF_CONFIG": `{"cluster":{"worker":{},"ps":[]},"task":{"type":"chief","index":0}}`})

	one := &jobs.Job{Name: "solo", Source: jobs.Source{Format: jobs.FormatTFJob}, Contracts: []string{jobs.ContractTF},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 1, Ports: []jobs.Port{{Label: "tfjob-port", Count: 1, Implicit: true}}}}}
	env := mustEval(t, one, SampleTopology(one), "worker", 0, Options{})
	absent(t, env, "TF_CONFIG")
}

// spec/kubeflow.md §4.3.
func torchExample(nproc string) (*jobs.Job, Topology) {
	p := []jobs.Port{{Label: "pytorchjob-port", Count: 1, Implicit: true, Number: 23456}}
	j := &jobs.Job{Name: "pt", Source: jobs.Source{Format: jobs.FormatPyTorchJob}, Contracts: []string{jobs.ContractTorch},
		Roles: []*jobs.Role{
			{Name: "Master", ReplicaType: "master", Instances: 1, Ports: p, NprocPerNodeSpec: nproc},
			{Name: "Worker", ReplicaType: "worker", Instances: 3, Ports: p, NprocPerNodeSpec: nproc},
		}}
	tp := map[string][]int{"pytorchjob-port": {23456}}
	topo := Topology{Roles: []RoleTopology{
		{Name: "Master", Tasks: []TaskTopology{task("10.1.0.1", tp)}},
		{Name: "Worker", Tasks: []TaskTopology{task("10.1.0.2", tp), task("10.1.0.3", tp), task("10.1.0.4", tp)}},
	}}
	return j, topo
}

func TestTorchWorkedExample(t *testing.T) {
	j, topo := torchExample("")
	common := map[string]string{"PYTHONUNBUFFERED": "1", "MASTER_PORT": "23456", "PET_MASTER_PORT": "23456",
		"MASTER_ADDR": "10.1.0.1", "PET_MASTER_ADDR": "10.1.0.1", "WORLD_SIZE": "4", "PET_NPROC_PER_NODE": "auto", "PET_NNODES": "4"}
	for _, tc := range []struct {
		role string
		i    int
		rank string
	}{{"Master", 0, "0"}, {"Worker", 0, "1"}, {"Worker", 1, "2"}, {"Worker", 2, "3"}} {
		env := mustEval(t, j, topo, tc.role, tc.i, Options{})
		want := map[string]string{"RANK": tc.rank, "PET_NODE_RANK": tc.rank}
		for k, v := range common {
			want[k] = v
		}
		subset(t, env, want)
		if len(env) != len(want) {
			t.Errorf("%s-%d: %d variables, want %d: %v", tc.role, tc.i, len(env), len(want), env)
		}
	}
	golden(t, "torch-4.3-worker-1.env", envText(mustEval(t, j, topo, "Worker", 1, Options{})))

	j, topo = torchExample("4")
	subset(t, mustEval(t, j, topo, "Worker", 2, Options{}), map[string]string{"WORLD_SIZE": "16", "PET_NPROC_PER_NODE": "4", "RANK": "3"})
}

// Seed 000: a LeinaoPAI ps×2 / worker×2 job.
func TestLeinaoExample(t *testing.T) {
	role := func(name string) *jobs.Role {
		return &jobs.Role{Name: name, Instances: 2, Ports: []jobs.Port{{Label: LeinaoLabel, Count: 3, Implicit: true}}}
	}
	j := &jobs.Job{Name: "tensorflow-distributed", Source: jobs.Source{Format: jobs.FormatPAIv1, Dialect: "leinao"},
		Contracts: []string{jobs.ContractLeinao}, Roles: []*jobs.Role{role("ps"), role("worker")}}
	topo := Topology{Roles: []RoleTopology{
		{Name: "ps", Tasks: []TaskTopology{
			task("192.168.1.10", map[string][]int{"leinao": {31001, 31002, 31003}}),
			task("192.168.1.11", map[string][]int{"leinao": {32001, 32002, 32003}})}},
		{Name: "worker", Tasks: []TaskTopology{
			task("192.168.1.10", map[string][]int{"leinao": {33001, 33002, 33003}}),
			task("192.168.1.12", map[string][]int{"leinao": {34001, 34002, 34003}})}},
	}}
	j.Roles[1].Resources = jobs.Resources{GPU: 2, CPUMilli: 2000, MemoryMiB: 16384}
	env := mustEval(t, j, topo, "worker", 1, Options{User: "feng"})
	// LeinaoPAI ran on OpenPAI's YARN era: the pai-yarn names are there
	// too, without the ones built from http/ssh ports (LeinaoPAI had
	// none) and without a YARN label for the three mapped ports.
	for _, name := range []string{"PAI_CONTAINER_HOST_PORT", "PAI_CONTAINER_SSH_PORT", "PAI_CURRENT_CONTAINER_PORT",
		"PAI_PORT_LIST_worker_1_leinao", "PAI_worker_1_leinao_PORT", "PAI_CONTAINER_HOST_leinao_PORT_LIST"} {
		if v, ok := env.Lookup(name); ok {
			t.Errorf("%s=%q is set; LeinaoPAI had no such variable", name, v)
		}
	}
	subset(t, env, map[string]string{
		"PAI_USER_NAME":                            "feng",
		"PAI_USERNAME":                             "feng",
		"PAI_JOB_NAME":                             "feng~tensorflow-distributed",
		"FRAMEWORK_NAME":                           "feng~tensorflow-distributed",
		"PAI_TASK_ROLE_LIST":                       "ps,worker",
		"PAI_TASK_ROLE_COUNT":                      "2",
		"PAI_TASK_ROLE_TASK_COUNT_ps":              "2",
		"PAI_HOST_IP_ps_1":                         "192.168.1.11",
		"PAI_HOST_IP_worker_1":                     "192.168.1.12",
		"PAI_CONTAINER_HOST_IP":                    "192.168.1.12",
		"PAI_CONTAINER_HOST_PORT_LIST":             "",
		"PAI_RESOURCE":                             "2,2,16384,0",
		"PAI_TASK_GPU_NUM":                         "2",
		"PAI_TASKS_NUM":                            "4",
		"PAI_CURRENT_TASK_ROLE_NAME":               "worker",
		"PAI_CURRENT_TASK_ROLE_TASK_COUNT":         "2",
		"PAI_TASK_ROLE_ps_HOST_LIST":               "192.168.1.10,192.168.1.11",
		"PAI_TASK_ROLE_worker_HOST_LIST":           "192.168.1.10,192.168.1.12",
		"PAI_PORT_LIST_ps_0":                       "192.168.1.10,31001,31002,31003",
		"PAI_PORT_LIST_ps_1":                       "192.168.1.11,32001,32002,32003",
		"PAI_PORT_LIST_worker_0":                   "192.168.1.10,33001,33002,33003",
		"PAI_PORT_LIST_worker_1":                   "192.168.1.12,34001,34002,34003",
		"PAI_CURRENT_CONTAINER_IP":                 "192.168.1.12",
		"PAI_TASK_INDEX":                           "1",
		"PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX": "1",
		"PAI_PORT_MAP_10001":                       "34001",
		"PAI_PORT_MAP_10002":                       "34002",
		"PAI_PORT_MAP_10003":                       "34003",
	})
	golden(t, "leinao-worker-1.env", envText(env))
}

// Seed 002: a UAI Train job of 4 nodes ip0..ip3; port-ps is the first
// declared port, port-worker the second.
func TestUAIExample(t *testing.T) {
	j := paiJob("uai", paiRole("node", 4, jobs.Port{Label: "uai", Count: 2}))
	j.Contracts = []string{jobs.ContractUAI}
	var tasks []TaskTopology
	for n, ip := range []string{"10.9.0.10", "10.9.0.11", "10.9.0.12", "10.9.0.13"} {
		tasks = append(tasks, task(ip, map[string][]int{"uai": {4000 + n, 5000 + n}, "ssh": {6000 + n}, "http": {7000 + n}}))
	}
	topo := Topology{Roles: []RoleTopology{{Name: "node", Tasks: tasks}}}
	cluster := `{"cluster":{"master":["10.9.0.10:5000"],"ps":["10.9.0.10:4000","10.9.0.11:4001","10.9.0.12:4002","10.9.0.13:4003"],"worker":["10.9.0.11:5001","10.9.0.12:5002","10.9.0.13:5003"]},"task":`
	for _, tc := range []struct {
		i    int
		proc string
		task string
	}{
		{0, ProcessMain, `{"type":"master","index":0}`},
		{0, ProcessPS, `{"type":"ps","index":0}`},
		{1, ProcessMain, `{"type":"worker","index":0}`},
		{2, ProcessMain, `{"type":"worker","index":1}`},
		{3, ProcessMain, `{"type":"worker","index":2}`},
		{3, ProcessPS, `{"type":"ps","index":3}`},
	} {
		env := mustEval(t, j, topo, "node", tc.i, Options{Process: tc.proc})
		subset(t, env, map[string]string{"TF_CONFIG": cluster + tc.task + `,"environment":"cloud"}`})
	}
	if got := Processes(j, Options{}); len(got) != 2 {
		t.Errorf("Processes = %q, want main and ps", got)
	}
}

func TestEvalAllMatchesEval(t *testing.T) {
	j, topo := paiExample()
	opts := Options{User: "alice", Contracts: []string{jobs.ContractPAI, jobs.ContractPAIYarn, jobs.ContractTF}}
	all, err := EvalAll(j, topo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != j.TaskCount() {
		t.Fatalf("EvalAll gave %d tasks, want %d", len(all), j.TaskCount())
	}
	for ref, env := range all {
		if diff := cmp.Diff(mustEval(t, j, topo, ref.Role, ref.Index, opts), env); diff != "" {
			t.Errorf("%v (-Eval +EvalAll):\n%s", ref, diff)
		}
	}
}

func TestWriteTable(t *testing.T) {
	j, topo := paiExample()
	var b strings.Builder
	if err := WriteTable(&b, j, topo, Options{User: "alice"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "table-pai-3.1.6.txt", b.String())
}

// The renderings of the §3.1.6 job, as snapshots (their correctness is
// what the differential tests check; these show what a change changes).
func TestRenderingSnapshots(t *testing.T) {
	j, _ := paiExample()
	sh, err := Shell(j, Options{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "shell-pai-3.1.6.sh", sh)
	c, err := Compile(j, Options{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.ShellStages()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "shell-pai-3.1.6-shared.sh", st.Shared)
	golden(t, "shell-pai-3.1.6-task.sh", st.Task)
	tm, err := NomadTemplate(j, "worker", "mnist", Options{User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "nomad-pai-3.1.6-worker.tmpl", tm)
}

// Seed 002 as UAI users wrote it: no ports declared. The contract asks for
// two ports under UAILabel (port-ps first, port-worker second); a port the
// role declares itself (syn) is not used by TF_CONFIG.
func TestUAIExampleWithoutDeclaredPorts(t *testing.T) {
	for name, declared := range map[string][]jobs.Port{
		"none":     nil,
		"one port": {{Label: "syn", Count: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			j := paiJob("uai", paiRole("node", 3, declared...))
			j.Contracts = []string{jobs.ContractUAI}
			want := map[string]int{"ssh": 1, "http": 1, UAILabel: 2}
			for _, p := range declared {
				want[p.Label] = p.Count
			}
			got := map[string]int{}
			for _, p := range PortLabels(j, 0, Options{}) {
				got[p.Label] = p.Count
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("PortLabels (-want +got):\n%s", diff)
			}
			var tasks []TaskTopology
			for n, ip := range []string{"10.9.0.10", "10.9.0.11", "10.9.0.12"} {
				tasks = append(tasks, task(ip, map[string][]int{UAILabel: {4000 + n, 5000 + n}, "syn": {3000 + n}, "ssh": {6000 + n}, "http": {7000 + n}}))
			}
			topo := Topology{Roles: []RoleTopology{{Name: "node", Tasks: tasks}}}
			cluster := `{"cluster":{"master":["10.9.0.10:5000"],"ps":["10.9.0.10:4000","10.9.0.11:4001","10.9.0.12:4002"],"worker":["10.9.0.11:5001","10.9.0.12:5002"]},"task":`
			subset(t, mustEval(t, j, topo, "node", 2, Options{}), map[string]string{"TF_CONFIG": cluster + `{"type":"worker","index":1},"environment":"cloud"}`})
			subset(t, mustEval(t, j, topo, "node", 1, Options{Process: ProcessPS}), map[string]string{"TF_CONFIG": cluster + `{"type":"ps","index":1},"environment":"cloud"}`})
		})
	}
}
