package contract

import (
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/volcano"
)

func readVolcano(t *testing.T, src string) *jobs.Job {
	t.Helper()
	j, diags := volcano.Read([]byte(src), jobs.ReadOptions{Path: "vc.yaml"})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return j
}

// volcanoTopo places task i of role k at its Volcano domain name with
// every port label at port, so the oracle's values can be compared with
// Volcano's own, which use the domain names and the plugin's port.
func volcanoTopo(j *jobs.Job, port int) Topology {
	var topo Topology
	for k, r := range j.Roles {
		rt := RoleTopology{Name: r.Name}
		for i := range r.Instances {
			ports := map[string][]int{}
			for _, p := range PortLabels(j, k, Options{}) {
				ports[p.Label] = []int{port}
			}
			rt.Tasks = append(rt.Tasks, task(volcano.DomainName(j.Name, r.Name, i), ports))
		}
		topo.Roles = append(topo.Roles, rt)
	}
	return topo
}

const vcHead = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: "

func vcTask(name string, n int) string {
	return "    - name: " + name + "\n      replicas: " + string(rune('0'+n)) + "\n      template:\n        spec:\n          containers:\n            - image: busybox\n"
}

// TestVolcanoTensorflow is the case of the tensorflow plugin's own test
// (pkg/controllers/job/plugins/distributed-framework/tensorflow/
// tensorflow_test.go @v1.16.0-alpha.1): job train-123, ps×2, worker×2,
// chief×1, --port=5000; the expected TF_CONFIG strings are that test's.
func TestVolcanoTensorflow(t *testing.T) {
	j := readVolcano(t, vcHead+"train-123\nspec:\n  plugins:\n    tensorflow: [--port=5000]\n  tasks:\n"+vcTask("ps", 2)+vcTask("worker", 2)+vcTask("chief", 1))
	topo := volcanoTopo(j, 5000)
	cluster := `{"cluster":{"ps":["train-123-ps-0.train-123:5000","train-123-ps-1.train-123:5000"],"worker":["train-123-worker-0.train-123:5000","train-123-worker-1.train-123:5000"],"chief":["train-123-chief-0.train-123:5000"]},`
	for role, typ := range map[string]string{"ps": "ps", "worker": "worker", "chief": "chief"} {
		env := mustEval(t, j, topo, role, 0, Options{})
		subset(t, env, map[string]string{"TF_CONFIG": cluster + `"task":{"type":"` + typ + `","index":0}}`})
	}
	// a stand-alone job (one task, one replica) gets no TF_CONFIG
	one := readVolcano(t, vcHead+"solo\nspec:\n  plugins:\n    tensorflow: []\n  tasks:\n"+vcTask("worker", 1))
	if _, ok := mustEval(t, one, volcanoTopo(one, 2222), "worker", 0, Options{}).Lookup("TF_CONFIG"); ok {
		t.Error("TF_CONFIG for a stand-alone job")
	}
}

// TestVolcanoPytorch follows the pytorch plugin's test (pytorch_test.go
// @v1.16.0-alpha.1): job test-pytorch, master×1, worker×2: MASTER_ADDR
// test-pytorch-master-0.test-pytorch, MASTER_PORT the plugin's port,
// WORLD_SIZE 3, RANK 0 on the master and index+1 on workers.
func TestVolcanoPytorch(t *testing.T) {
	j := readVolcano(t, vcHead+"test-pytorch\nspec:\n  plugins:\n    pytorch: []\n  tasks:\n"+vcTask("master", 1)+vcTask("worker", 2))
	topo := volcanoTopo(j, 23456)
	want := map[string]string{"MASTER_ADDR": "test-pytorch-master-0.test-pytorch", "MASTER_PORT": "23456", "WORLD_SIZE": "3"}
	for _, c := range []struct {
		role, rank string
		i          int
	}{{"master", "0", 0}, {"worker", "1", 0}, {"worker", "2", 1}} {
		want["RANK"] = c.rank
		subset(t, mustEval(t, j, topo, c.role, c.i, Options{}), want)
	}
}

// TestVolcanoEnvSVCMPI: env (VK_TASK_INDEX, VC_TASK_INDEX: the pod's
// index), svc (VC_<TASK>_HOSTS, VC_<TASK>_NUM with '-' → '_'; none with
// --inject-hosts-env=false), mpi (MPI_HOST on --master only: the
// --worker task's domain names joined by ','; mpi.go generateTaskHosts).
func TestVolcanoEnvSVCMPI(t *testing.T) {
	j := readVolcano(t, vcHead+"lm\nspec:\n  plugins:\n    env: []\n    svc: []\n    mpi: [--master=mpimaster, --worker=mpi-worker]\n  tasks:\n"+vcTask("mpimaster", 1)+vcTask("mpi-worker", 2))
	topo := volcanoTopo(j, 22)
	master := mustEval(t, j, topo, "mpimaster", 0, Options{})
	subset(t, master, map[string]string{
		"VK_TASK_INDEX": "0", "VC_TASK_INDEX": "0",
		"VC_MPIMASTER_HOSTS": "lm-mpimaster-0.lm", "VC_MPIMASTER_NUM": "1",
		"VC_MPI_WORKER_HOSTS": "lm-mpi-worker-0.lm,lm-mpi-worker-1.lm", "VC_MPI_WORKER_NUM": "2",
		"MPI_HOST": "lm-mpi-worker-0.lm,lm-mpi-worker-1.lm",
	})
	w := mustEval(t, j, topo, "mpi-worker", 1, Options{})
	subset(t, w, map[string]string{"VK_TASK_INDEX": "1", "VC_TASK_INDEX": "1"})
	if _, ok := w.Lookup("MPI_HOST"); ok {
		t.Error("MPI_HOST on a worker")
	}
	off := readVolcano(t, vcHead+"lm\nspec:\n  plugins:\n    svc: [--inject-hosts-env=false]\n  tasks:\n"+vcTask("a", 1))
	if _, ok := mustEval(t, off, volcanoTopo(off, 1), "a", 0, Options{}).Lookup("VC_A_HOSTS"); ok {
		t.Error("VC_A_HOSTS with --inject-hosts-env=false")
	}
	// the ssh emulation answers to Volcano's pod names and domain names
	if got := SSHAliases(j, 1, 1); len(got) != 2 || got[0] != "lm-mpi-worker-1" || got[1] != "lm-mpi-worker-1.lm" {
		t.Errorf("aliases %v", got)
	}
}

// TestVolcanoFixedPortPeers: the TensorFlow example's shape (host files
// and a port of the job's own) is found; the MPI example (host files,
// no port) and a job without the svc plugin are not.
func TestVolcanoFixedPortPeers(t *testing.T) {
	job := func(script string, svc bool) *jobs.Job {
		v := &jobs.Volcano{}
		if svc {
			v.Plugins = []jobs.VolcanoPlugin{{Name: "svc"}}
		}
		return &jobs.Job{Name: "j", Source: jobs.Source{Format: jobs.FormatVolcano}, Extras: jobs.Extras{Volcano: v},
			Roles: []*jobs.Role{{Name: "ps", Instances: 1, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"sh", "-c", script}}}, {Name: "worker", Instances: 2}}}
	}
	tf := "PS_HOST=`cat /etc/volcano/ps.host | sed 's/$/&:2222/g' | tr \"\\n\" \",\"`; python3 train.py"
	mpi := "MPI_HOST=`cat /etc/volcano/mpiworker.host | tr \"\\n\" \",\"`; mpiexec --host ${MPI_HOST} -np 2 hello"
	for name, tc := range map[string]struct {
		job  *jobs.Job
		want string
	}{
		"tf shape":      {job(tf, true), "ps"},
		"mpi shape":     {job(mpi, true), ""},
		"no svc plugin": {job(tf, false), ""},
		"url, no files": {job("curl http://example.com:8080/x", true), ""},
	} {
		if got := VolcanoFixedPortPeers(tc.job); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
