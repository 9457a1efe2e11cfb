package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

func exIntp(i int) *int { return &i }

// Hand-built jobs, so the table's rendering is tested whatever the readers
// currently produce.
func explainJobs() map[string]*translate.Plan {
	paiJob := &jobs.Job{
		Name:   "tensorflow-distributed-001",
		Source: jobs.Source{Format: jobs.FormatPAIv1, Path: "job.json", Dialect: "leinao"},
		Roles: []*jobs.Role{
			{Name: "ps", Instances: 2, Image: "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
				Command:   jobs.Command{Kind: jobs.CommandEval, Script: "python mnist_replica.py --job_name=ps --task_index=$PAI_TASK_INDEX"},
				Resources: jobs.Resources{CPUMilli: 2000, MemoryMiB: 8192, GPU: 0},
				Ports:     []jobs.Port{{Label: "leinao", Count: 3, Implicit: true}},
				MinFailed: exIntp(1), MinSucceeded: nil},
			{Name: "worker", Instances: 2, Image: "10.11.3.8:5000/pai-images/pai.run.deepo:v1.1",
				Command:    jobs.Command{Kind: jobs.CommandEval, Script: "python mnist_replica.py --job_name=worker --task_index=$PAI_TASK_INDEX --data_dir=/gdata/MNIST --train_steps=20000"},
				Resources:  jobs.Resources{CPUMilli: 500, MemoryMiB: 8192, ShmMiB: 64, ShmSet: true, GPU: 1, GPUType: "titanxp", Extended: map[string]int64{"rdma/hca": 1}},
				Ports:      []jobs.Port{{Label: "grpc", Count: 2, BeginAt: 5000}, {Label: "ssh", Count: 1, Implicit: true}},
				Env:        []jobs.EnvVar{{Name: "A", Value: "1"}},
				WorkingDir: "/work",
				MinFailed:  exIntp(1), MinSucceeded: exIntp(-1), TaskRetryCount: 2},
		},
		Completion:  jobs.Completion{Kind: jobs.CompletionPAI},
		Retry:       jobs.Retry{JobRetryCount: -2, GangAllocation: true},
		Parameters:  map[string]any{"epochs": 10, "script": "line one\nline two"},
		SecretNames: []string{"registry"},
	}
	tfJob := &jobs.Job{
		Name:   "dist-mnist",
		Source: jobs.Source{Format: jobs.FormatTFJob, Version: "kubeflow.org/v1", Kind: "TFJob", Path: "-"},
		Roles: []*jobs.Role{
			{Name: "Chief", ReplicaType: "chief", Instances: 1, Image: "tf:2", RestartPolicy: "Never",
				Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"python", "train.py"}, Args: []string{"--steps", "10"}},
				Ports:   []jobs.Port{{Label: "tfjob-port", Count: 1, Number: 2222, Implicit: true}}},
			{Name: "Worker", ReplicaType: "worker", Instances: 3, Image: "tf:2", RestartPolicy: "ExitCode",
				Command:   jobs.Command{Kind: jobs.CommandArgv, Args: []string{"--steps", "10"}},
				Resources: jobs.Resources{CPUMilli: 4000, MemoryMiB: 4096, GPU: 2},
				Volumes:   []jobs.Volume{{Name: "data", Kind: "hostPath", Source: "/data", MountPath: "/mnt"}}},
		},
		Completion: jobs.Completion{Kind: jobs.CompletionTF, SuccessPolicy: "AllWorkers"},
		Retry:      jobs.Retry{BackoffLimit: exIntp(3), CleanPodPolicy: "None"},
	}
	return map[string]*translate.Plan{
		"explain-table-pai": {Job: paiJob, Contracts: []string{"pai", "pai-yarn", "leinao"}, User: "tester", Site: &siteconfig.Config{Path: "site.hcl"}},
		"explain-table-tf":  {Job: tfJob, Contracts: []string{"tf"}, User: "tester", Site: &siteconfig.Config{}},
	}
}

func TestExplainTable(t *testing.T) {
	for name, plan := range explainJobs() {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			explainTable(&b, plan)
			checkGolden(t, name, b.String())
		})
	}
}

func TestSqueezeLine(t *testing.T) {
	cases := map[string]struct {
		in   string
		n    int
		want string
	}{
		"short":     {"echo hi", 10, "echo hi"},
		"newlines":  {"a\n  b\n", 20, "a ⏎ b"},
		"cut":       {"abcdefghij", 5, "abcd…"},
		"cut runes": {"ééééé", 3, "éé…"},
	}
	for name, tc := range cases {
		if got := squeezeLine(tc.in, tc.n); got != tc.want {
			t.Errorf("%s: squeezeLine(%q, %d) = %q, want %q", name, tc.in, tc.n, got, tc.want)
		}
	}
}

// corpusFile returns <repo root>/../shared/corpus/rel, skipping the test
// when the corpus is absent.
func corpusFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "corpus", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file absent: %v", err)
	}
	return p
}

// Issue 2, "done means": explain on the LeinaoPAI distributed example shows
// roles ps and worker, 2 instances each, and the file's GPU counts
// ("gpuNumber": 0 for ps at line 11, 2 for worker at line 19).
func TestExplainLeinaoDistributed(t *testing.T) {
	isolate(t)
	path := corpusFile(t, "pai-v1/feng257-LeinaoPAI__example-tensorflow-distributed-distributed_job.json")
	var out, errb bytes.Buffer
	code := realMain([]string{"explain", path}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	rows := map[string][]string{}
	inTable := false
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "ROLE":
			inTable = true
		case len(f) == 0:
			inTable = false
		case inTable:
			rows[f[0]] = f
		}
	}
	want := map[string]struct{ instances, gpu string }{"ps": {"2", "0"}, "worker": {"2", "2"}}
	if len(rows) != len(want) {
		t.Errorf("roles %v, want ps and worker\n%s", rows, out.String())
	}
	for role, w := range want {
		f := rows[role]
		// MEMORY and GPU cells hold spaces, so GPU is read as the column
		// under its header, not by field index.
		if len(f) < 2 || f[1] != w.instances {
			t.Errorf("%s: row %v, want %s instances", role, f, w.instances)
			continue
		}
		if got := tableColumn(out.String(), "GPU", role); got != w.gpu {
			t.Errorf("%s: GPU %q, want %q\n%s", role, got, w.gpu, out.String())
		}
	}
}

// column returns the first word in the row of role under the header word
// col of the role table (tabwriter aligns columns by character offset).
func tableColumn(table, col, role string) string {
	lines := strings.Split(table, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "ROLE") {
			continue
		}
		off := strings.Index(l, " "+col+" ") + 1
		if off == 0 {
			return ""
		}
		for _, r := range lines[i+1:] {
			if strings.TrimSpace(r) == "" {
				return ""
			}
			if f := strings.Fields(r); f[0] == role && len(r) > off {
				return strings.Fields(r[off:])[0]
			}
		}
	}
	return ""
}

// -env evaluates the contracts on a topology file: values come from it.
func TestExplainEnvTopology(t *testing.T) {
	isolate(t)
	out, code := runCLI(t, []string{"explain", "-env", "-contract", "tf", "-topology", "testdata/cli/topology.json", "testdata/cli/pai-v1.json"}, "")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// "# every task" holds what every task has; each task's block the rest.
	env := map[string]map[string]string{} // task → name → value
	shared := map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(out, "\n") {
		if line == "# every task" {
			cur = shared
			continue
		}
		if strings.HasPrefix(line, "# ") {
			task := strings.Fields(line)[1]
			cur = map[string]string{}
			env[task] = cur
			continue
		}
		if name, value, ok := strings.Cut(line, "="); ok && cur != nil {
			if _, dup := cur[name]; dup {
				t.Errorf("%s printed twice in one block", name)
			}
			cur[name] = value
		}
	}
	for task, vars := range env {
		for name, value := range shared {
			if _, dup := vars[name]; dup {
				t.Errorf("%s: %s printed both under every task and for the task", task, name)
			}
			vars[name] = value
		}
	}
	if shared["PAI_HOST_IP_ps_0"] != "node-a" || env["ps-0"]["PAI_CURRENT_TASK_ROLE_NAME"] == "" {
		t.Errorf("host variables belong to the shared block, the task's own role name to its block:\n%s", out)
	}
	want := map[string]map[string]string{
		"ps-0":     {"PAI_CURRENT_TASK_ROLE_NAME": "ps", "PAI_HOST_IP_ps_0": "node-a", "PAI_worker_2_grpc_PORT": "5003"},
		"worker-2": {"PAI_TASK_INDEX": "2", "PAI_CONTAINER_HOST_IP": "node-d", "PAI_PORT_LIST_worker_1_grpc": "5002"},
	}
	for task, vars := range want {
		for name, value := range vars {
			if got := env[task][name]; got != value {
				t.Errorf("%s: %s=%q, want %q", task, name, got, value)
			}
		}
	}
	if len(env) != 4 {
		t.Errorf("%d tasks printed, want 4", len(env))
	}
	for task, vars := range env {
		if _, ok := vars["TF_CONFIG"]; !ok {
			t.Errorf("%s: no TF_CONFIG although -contract tf", task)
		}
	}
}

func TestExplainEnvErrors(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"bad topology json":   {[]string{"-topology", "testdata/cli/topology-bad.json"}, "testdata/cli/topology-bad.json:2:38: error: Invalid topology file"},
		"topology mismatch":   {[]string{"-topology", "testdata/cli/topology-short.json"}, "error: Topology does not match the job"},
		"missing topology":    {[]string{"-topology", "testdata/cli/nope.json"}, "error: Cannot read topology file"},
		"no contracts at all": {[]string{"-contract", "="}, "No contracts: tasks get no platform environment variables."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			args := append(append([]string{"explain", "-env"}, tc.args...), "testdata/cli/pai-v1.json")
			out, _ := runCLI(t, args, "")
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
		})
	}
}

// Secret values never appear in what explain prints (DESIGN: secrets are
// never shown in plain text); their names may.
func TestExplainHidesSecrets(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		isolate(t)
		out, code := runCLI(t, []string{"explain", "-format", format, "-secrets", "testdata/cli/secrets.yaml", "testdata/cli/pai-v2-auth.yaml"}, "")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", format, code, out)
		}
		if strings.Contains(out, "s3cret") {
			t.Errorf("%s: the secret value is printed:\n%s", format, out)
		}
	}
}

// A one-task job has no "every task" block: its whole environment is
// printed under its own name.
func TestExplainEnvOneTask(t *testing.T) {
	isolate(t)
	src := "protocolVersion: 2\nname: solo\ntype: job\nprerequisites:\n  - {type: dockerimage, name: img, uri: busybox}\n" +
		"taskRoles:\n  worker:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 128, gpu: 0}\n    commands: [\"true\"]\n"
	out, code := runCLI(t, []string{"explain", "-env", "-"}, src)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if strings.Contains(out, "# every task") {
		t.Errorf("a one-task job printed a shared block:\n%s", out)
	}
	_, task, ok := strings.Cut(out, "\n# worker-0")
	if !ok || !strings.Contains(task, "\nPAI_TASK_ROLE_LIST=worker\n") || !strings.Contains(task, "\nPAI_CURRENT_TASK_ROLE_NAME=worker\n") {
		t.Errorf("worker-0's block lacks its job-wide and own variables:\n%s", out)
	}
}
