package multihost_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers/nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
	"github.com/jobshift/jobshift/translate/contract"
)

// envThenMesh prints the task's environment as one JSON line ("ENV {...}"),
// then becomes examples/mesh.py, which reaches every peer TF_CONFIG names
// (trainers exchange a value with every trainer and every ps).
const envThenMesh = `python3 -c 'import json, os; print("ENV " + json.dumps(dict(os.environ)), flush=True)' && exec python3 examples/mesh.py tfconfig`

// seed003 is the TFJob of shared/seeds/003 (kubeflow.org/v1beta1, MASTER x1
// with one GPU, Worker x2, PS x1, restartPolicy OnFailure) with mesh.py in
// place of the user's image entrypoint.
func seed003(t *testing.T) string {
	t.Helper()
	role := func(name string, n, gpu int) string {
		lim := ""
		if gpu > 0 {
			lim = fmt.Sprintf("\n              resources:\n                limits:\n                  nvidia.com/gpu: %d", gpu)
		}
		return fmt.Sprintf(`    %s:
      replicas: %d
      template:
        spec:
          containers:
            - image: tf-mnist:gpu
              name: tensorflow
              command: ["sh", "-c", %q]%s
          restartPolicy: OnFailure
`, name, n, envThenMesh, lim)
	}
	src := "apiVersion: kubeflow.org/v1beta1\nkind: TFJob\nmetadata:\n  name: module6-ex1-gpu\nspec:\n  tfReplicaSpecs:\n" +
		role("MASTER", 1, 1) + role("Worker", 2, 1) + role("PS", 1, 0)
	f := filepath.Join(t.TempDir(), "seed003.yaml")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// envLine is the ENV line a task printed.
func envLine(t *testing.T, task, out string) map[string]string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ENV ") {
			var env map[string]string
			if err := json.Unmarshal([]byte(l[4:]), &env); err != nil {
				t.Errorf("%s: ENV line: %v", task, err)
			}
			return env
		}
	}
	t.Errorf("%s printed no ENV line:\n%s", task, out)
	return nil
}

// checkOracle: the task's environment holds exactly the oracle's variables.
func checkOracle(t *testing.T, want contract.Env, env map[string]string, task, workDir string) {
	t.Helper()
	for _, v := range want {
		w := v.Value
		if v.Name == contract.WorkDirVar && w == "" {
			w = workDir
		}
		if g, ok := env[v.Name]; !ok || g != w {
			t.Errorf("%s: %s = %q (set: %v), oracle %q", task, v.Name, g, ok, w)
		}
	}
}

// TestSeed003TFJobAcrossHosts: the TFJob master/ps/worker seed on both
// clusters: every task's environment is the oracle's for where it ran, the
// tasks span at least three hosts, mesh.py reached every peer, the master
// decided success and the PS was stopped.
func TestSeed003TFJobAcrossHosts(t *testing.T) {
	seedAcrossHosts(t, seed003)
}

func jobsRef(role string, i int) jobs.TaskRef { return jobs.TaskRef{Role: role, Index: i} }

// seed004 is the plain distributed TensorFlow job of shared/seeds/004 (ps
// x2, worker x2, the cluster passed as --ps_hosts/--worker_hosts/
// --job_name/--task_index) as an OpenPAI v1 job (examples/
// pai-v1-ps-worker.json), each task printing its environment first.
func seed004(t *testing.T) string {
	t.Helper()
	role := func(name string, extra string) string {
		cmd := `python3 -c 'import json, os; print("ENV " + json.dumps(dict(os.environ)), flush=True)' && exec python3 examples/mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST --worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST --job_name=` + name + ` --task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX`
		b, _ := json.Marshal(cmd)
		return fmt.Sprintf(`{"name": %q, "taskNumber": 2, "cpuNumber": 1, "memoryMB": 256, "gpuNumber": 0, %s"minFailedTaskCount": 1, "command": %s}`, name, extra, b)
	}
	src := `{"jobName": "seed004", "image": "python:3.11-slim", "retryCount": 0, "taskRoles": [` +
		role("ps", "") + ", " + role("worker", `"minSucceededTaskCount": 2, `) + "]}"
	f := filepath.Join(t.TempDir(), "seed004.json")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSeed004PlainFlagsAcrossHosts: seed 004's four processes on both
// clusters: every task's environment is the oracle's for where it ran, the
// tasks span at least three hosts, mesh.py reached every peer named in the
// flags, the workers decided success and the parameter servers were
// stopped.
func TestSeed004PlainFlagsAcrossHosts(t *testing.T) {
	seedAcrossHosts(t, seed004)
}

// seedAcrossHosts runs the seed job file seed(t) names on both clusters and
// checks every task's environment against the oracle for where it ran, and
// that the tasks span at least three hosts.
func seedAcrossHosts(t *testing.T, seed func(*testing.T) string) {
	t.Run("slurm", func(t *testing.T) {
		c := need(t, "slurm")
		plan := loadPlan(t, c, seed(t))
		r := runSlurm(t, plan, 4*time.Minute)
		if r.final.Phase != completion.PhaseSucceeded || r.final.ExitCode != 0 {
			t.Fatalf("final = %+v", r.final)
		}
		topo := r.topology(t)
		checkSpread(t, c, taskAddrs(plan.Job, topo))
		opts := contract.Options{User: plan.User, Contracts: plan.Contracts}
		for _, role := range plan.Job.Roles {
			for i := 0; i < role.Instances; i++ {
				task := fmt.Sprintf("%s-%d", role.Name, i)
				want, err := contract.Eval(plan.Job, topo, jobsRef(role.Name, i), opts)
				if err != nil {
					t.Fatal(err)
				}
				checkOracle(t, want, envLine(t, task, r.taskLog(t, role.Name, i)), task, repoRoot())
			}
		}
	})
	t.Run("nomad", func(t *testing.T) {
		c := need(t, "nomad")
		cl := nomadClient(t, c)
		plan := loadPlan(t, c, seed(t))
		tasks, topo := runNomadPlaced(t, c, cl, plan)
		opts := contract.Options{User: plan.User, Contracts: plan.Contracts}
		for _, nt := range tasks {
			want, err := contract.Eval(plan.Job, topo, jobsRef(nt.role, nt.index), opts)
			if err != nil {
				t.Fatal(err)
			}
			out := catAlloc(t, cl, nt.alloc, "alloc/logs/"+nomad.MainTask+".stdout.0")
			checkOracle(t, want, envLine(t, nt.alloc.Name, out), nt.alloc.Name, repoRoot())
		}
	})
}
