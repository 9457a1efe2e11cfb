package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// kindRole is a replica type as the Kubeflow reader builds it for the
// kind: its named port, implicit, with the operator's default number.
func kindRole(rt string, n int, label string, number int) *jobs.Role {
	return &jobs.Role{Name: rt, ReplicaType: rt, Instances: n, Ports: []jobs.Port{{Label: label, Count: 1, Implicit: true, Number: number}}}
}

func kindTopo(label string, roles map[string][]string, order ...string) Topology {
	var t Topology
	p := 30000
	for _, name := range order {
		rt := RoleTopology{Name: name}
		for _, a := range roles[name] {
			rt.Tasks = append(rt.Tasks, task(a, map[string][]int{label: {p}}))
			p++
		}
		t.Roles = append(t.Roles, rt)
	}
	return t
}

// TestOtherKindsEnv: every variable, in the operator's order, written by
// hand from the file named in source (addresses stand for the service
// names <job>-<type>-<index>, ports for the containerPort).
func TestOtherKindsEnv(t *testing.T) {
	xgb := &jobs.Job{Name: "xgb", Source: jobs.Source{Format: jobs.FormatXGBoostJob}, Contracts: []string{jobs.ContractXGBoost},
		Roles: []*jobs.Role{kindRole("master", 1, "xgboostjob-port", 9999), kindRole("worker", 2, "xgboostjob-port", 9999)}}
	xgbTopo := kindTopo("xgboostjob-port", map[string][]string{"master": {"10.0.0.1"}, "worker": {"10.0.0.2", "10.0.0.3"}}, "master", "worker")
	xgb1 := &jobs.Job{Name: "xgb", Source: jobs.Source{Format: jobs.FormatXGBoostJob}, Contracts: []string{jobs.ContractXGBoost},
		Roles: []*jobs.Role{kindRole("master", 1, "xgboostjob-port", 9999)}}
	xgb1Topo := kindTopo("xgboostjob-port", map[string][]string{"master": {"10.0.0.1"}}, "master")

	coll := &jobs.Job{Name: "pd", Source: jobs.Source{Format: jobs.FormatPaddleJob}, Contracts: []string{jobs.ContractPaddle},
		Roles: []*jobs.Role{kindRole("worker", 2, "master", 36543)}}
	collTopo := kindTopo("master", map[string][]string{"worker": {"10.0.0.1", "10.0.0.2"}}, "worker")
	ps := &jobs.Job{Name: "pd", Source: jobs.Source{Format: jobs.FormatPaddleJob}, Contracts: []string{jobs.ContractPaddle},
		Roles: []*jobs.Role{kindRole("worker", 2, "master", 36543), kindRole("master", 2, "master", 36543)}}
	psTopo := kindTopo("master", map[string][]string{"worker": {"10.0.0.1", "10.0.0.2"}, "master": {"10.0.0.3", "10.0.0.4"}}, "worker", "master")

	jax := &jobs.Job{Name: "jx", Source: jobs.Source{Format: jobs.FormatJAXJob}, Contracts: []string{jobs.ContractJAX},
		Roles: []*jobs.Role{kindRole("worker", 3, "jaxjob-port", 6666)}}
	jaxTopo := kindTopo("jaxjob-port", map[string][]string{"worker": {"10.0.0.1", "10.0.0.2", "10.0.0.3"}}, "worker")

	mx := &jobs.Job{Name: "mx", Source: jobs.Source{Format: jobs.FormatMXJob}, Contracts: []string{jobs.ContractMXNet},
		Extras: jobs.Extras{MXNet: &jobs.MXNet{JobMode: "MXTrain", TunerKeys: map[string]string{"server": "k<1>"}}},
		Roles:  []*jobs.Role{kindRole("worker", 2, "mxjob-port", 9091), kindRole("server", 1, "mxjob-port", 9091), kindRole("scheduler", 1, "mxjob-port", 9091)}}
	mxTopo := kindTopo("mxjob-port", map[string][]string{"worker": {"10.0.0.1", "10.0.0.2"}, "server": {"10.0.0.3"}, "scheduler": {"10.0.0.4"}}, "worker", "server", "scheduler")
	mxCluster := `{"cluster":{"scheduler":[{"url":"10.0.0.4","port":30003}],"server":[{"url":"10.0.0.3","port":30002}],"worker":[{"url":"10.0.0.1","port":30000},{"url":"10.0.0.2","port":30001}]},"labels":{"scheduler":"","server":"k\u003c1\u003e","worker":""}`
	mxw := &jobs.Job{Name: "mx", Source: jobs.Source{Format: jobs.FormatMXJob}, Contracts: []string{jobs.ContractMXNet},
		Roles: []*jobs.Role{kindRole("worker", 1, "mxjob-port", 9091)}}
	mxwTopo := kindTopo("mxjob-port", map[string][]string{"worker": {"10.0.0.1"}}, "worker")

	cases := map[string]struct {
		source string
		job    *jobs.Job
		topo   Topology
		task   jobs.TaskRef
		want   Env
	}{
		"xgboost master": {"pkg/controller.v1/xgboost/xgboost.go SetPodEnv @v1.9.0", xgb, xgbTopo, jobs.TaskRef{Role: "master"}, Env{
			{"MASTER_PORT", "30000"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "0"}, {"PYTHONUNBUFFERED", "1"},
			{"WORKER_PORT", "30001"}, {"WORKER_ADDRS", "10.0.0.2,10.0.0.3"}}},
		"xgboost worker 1: rank adds the Master's replicas, WORKER_PORT its own": {"xgboost.go SetPodEnv @v1.9.0 (rank += masterReplicas for Worker; WORKER_PORT the Worker's port, the one lightgbm-dist/main.py binds)", xgb, xgbTopo, jobs.TaskRef{Role: "worker", Index: 1}, Env{
			{"MASTER_PORT", "30000"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "2"}, {"PYTHONUNBUFFERED", "1"},
			{"WORKER_PORT", "30002"}, {"WORKER_ADDRS", "10.0.0.2,10.0.0.3"}}},
		"xgboost worker 0": {"xgboost.go SetPodEnv @v1.9.0", xgb, xgbTopo, jobs.TaskRef{Role: "worker"}, Env{
			{"MASTER_PORT", "30000"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "3"}, {"RANK", "1"}, {"PYTHONUNBUFFERED", "1"},
			{"WORKER_PORT", "30001"}, {"WORKER_ADDRS", "10.0.0.2,10.0.0.3"}}},
		"xgboost alone: no WORKER_*": {"xgboost.go SetPodEnv @v1.9.0 (if totalReplicas > 1)", xgb1, xgb1Topo, jobs.TaskRef{Role: "master"}, Env{
			{"MASTER_PORT", "30000"}, {"MASTER_ADDR", "10.0.0.1"}, {"WORLD_SIZE", "1"}, {"RANK", "0"}, {"PYTHONUNBUFFERED", "1"}}},
		"paddle collective worker 0 binds its own address": {"pkg/controller.v1/paddlepaddle/envvar.go setPodEnv @v1.9.0 (no Master: worker 0, $(POD_IP_DUMMY))", coll, collTopo, jobs.TaskRef{Role: "worker"}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "2"}, {"POD_IP_DUMMY", "10.0.0.1"}, {"PADDLE_MASTER", "10.0.0.1:30000"}}},
		"paddle collective worker 1": {"envvar.go setPodEnv @v1.9.0", coll, collTopo, jobs.TaskRef{Role: "worker", Index: 1}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "2"}, {"PADDLE_MASTER", "10.0.0.1:30000"}}},
		"paddle parameter-server master 0 binds its own address": {"envvar.go setPodEnv @v1.9.0 (rank == 0 && rtype == master: POD_IP_DUMMY, $(POD_IP_DUMMY):port)", ps, psTopo, jobs.TaskRef{Role: "master"}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "4"}, {"POD_IP_DUMMY", "10.0.0.3"}, {"PADDLE_MASTER", "10.0.0.3:30002"}, {"PADDLE_SERVER_NUM", "1"}}},
		"paddle parameter-server master 1": {"envvar.go setPodEnv @v1.9.0 (Master present: master 0, PADDLE_SERVER_NUM)", ps, psTopo, jobs.TaskRef{Role: "master", Index: 1}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "4"}, {"PADDLE_MASTER", "10.0.0.3:30002"}, {"PADDLE_SERVER_NUM", "1"}}},
		"paddle parameter-server worker 0: no POD_IP_DUMMY": {"envvar.go setPodEnv @v1.9.0 (PADDLE_TRAINER_NUM; rank 0 of Worker is not the rendezvous)", ps, psTopo, jobs.TaskRef{Role: "worker"}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"PADDLE_JOB_ID", "pd"}, {"PADDLE_NNODES", "4"}, {"PADDLE_MASTER", "10.0.0.3:30002"}, {"PADDLE_TRAINER_NUM", "1"}}},
		"jax worker 2": {"pkg/controller.v1/jax/envvar.go setPodEnv @v1.9.0", jax, jaxTopo, jobs.TaskRef{Role: "worker", Index: 2}, Env{
			{"PYTHONUNBUFFERED", "1"}, {"COORDINATOR_PORT", "30000"}, {"COORDINATOR_ADDRESS", "10.0.0.1"}, {"NUM_PROCESSES", "3"}, {"PROCESS_ID", "2"}}},
		"mxnet worker 1": {"pkg/controller.v1/mxnet/mxnet.go SetPodEnv, genMXConfig, addBytePSEnv @v1.8.1", mx, mxTopo, jobs.TaskRef{Role: "worker", Index: 1}, Env{
			{"MX_CONFIG", mxCluster + `,"task":{"type":"worker","index":1}}`}, {"DMLC_PS_ROOT_PORT", "30003"}, {"DMLC_PS_ROOT_URI", "10.0.0.4"},
			{"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "2"}, {"DMLC_ROLE", "worker"}, {"DMLC_USE_KUBERNETES", "1"}, {"DMLC_WORKER_ID", "1"}}},
		"mxnet scheduler: no DMLC_WORKER_ID": {"mxnet.go SetPodEnv @v1.8.1", mx, mxTopo, jobs.TaskRef{Role: "scheduler"}, Env{
			{"MX_CONFIG", mxCluster + `,"task":{"type":"scheduler","index":0}}`}, {"DMLC_PS_ROOT_PORT", "30003"}, {"DMLC_PS_ROOT_URI", "10.0.0.4"},
			{"DMLC_NUM_SERVER", "1"}, {"DMLC_NUM_WORKER", "2"}, {"DMLC_ROLE", "scheduler"}, {"DMLC_USE_KUBERNETES", "1"}}},
		"mxnet without scheduler: root 0 and empty": {"mxnet.go getConfigAddr @v1.8.1 (index out of range: url \"\", port 0)", mxw, mxwTopo, jobs.TaskRef{Role: "worker"}, Env{
			{"MX_CONFIG", `{"cluster":{"worker":[{"url":"10.0.0.1","port":30000}]},"labels":{"worker":""},"task":{"type":"worker","index":0}}`},
			{"DMLC_PS_ROOT_PORT", "0"}, {"DMLC_PS_ROOT_URI", ""}, {"DMLC_NUM_SERVER", "0"}, {"DMLC_NUM_WORKER", "1"}, {"DMLC_ROLE", "worker"},
			{"DMLC_USE_KUBERNETES", "1"}, {"DMLC_WORKER_ID", "0"}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := mustEval(t, c.job, c.topo, c.task.Role, c.task.Index, Options{})
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.source, diff)
			}
		})
	}
}

// TestOtherKindsRejects: a job of another format asking for these
// contracts must have the replica types they read.
func TestOtherKindsRejects(t *testing.T) {
	pai := paiJob("p", paiRole("worker", 2, jobs.Port{Label: "syn", Count: 1}))
	for _, c := range []string{jobs.ContractXGBoost, jobs.ContractPaddle, jobs.ContractJAX} {
		d := Check(pai, Options{Contracts: []string{c}, User: "u"})
		if !d.HasErrors() {
			t.Errorf("contract %s on a PAI job: no error", c)
		}
	}
	if d := Check(pai, Options{Contracts: []string{jobs.ContractMXNet}, User: "u"}); d.HasErrors() {
		t.Errorf("contract mxnet on a PAI job with ports: %v", d)
	}
}
