package contract

import (
	"sort"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// The contracts of the other training-operator kinds: xgboost, paddle and
// jax (training-operator v1.9.0) and mxnet (v1.8.1, MXJob's last release).
// Each sets exactly the operator's variables in the operator's order; an
// address is the task's (Kubernetes gave the service name
// <job>-<type>-<index>, which resolved to that pod), a port the task's port
// of the kind's label (the operator wrote the containerPort, the same on
// every pod; a target that shares hosts gives each task its own).

// roleOfType is the first role of replica type rt, or -1.
func roleOfType(j *jobs.Job, rt string) int {
	for k, r := range j.Roles {
		if strings.EqualFold(r.ReplicaType, rt) {
			return k
		}
	}
	return -1
}

// kindPort is role r's port of label (the kind's named containerPort, which
// the operator's defaults add when absent), else its first declared port.
func kindPort(r *jobs.Role, label string) *slot {
	if p := findPort(r, label); p != nil && p.Count > 0 {
		return &slot{p.Label, 0}
	}
	for _, p := range r.Ports {
		if !p.Implicit && p.Count > 0 {
			return &slot{p.Label, 0}
		}
	}
	return nil
}

// xgboost is pkg/controller.v1/xgboost/xgboost.go SetPodEnv @v1.9.0, in
// its order: MASTER_PORT (Master's xgboostjob-port), MASTER_ADDR (Master
// 0), WORLD_SIZE (all replicas), RANK (index; Workers add the Master's
// replicas), PYTHONUNBUFFERED=1; and, only when there is more than one
// replica ("used if it is a LightGBM job"), WORKER_PORT (the Worker's
// port) and WORKER_ADDRS (worker-0 … worker-(WORLD_SIZE-2), comma-joined).
//
// WORKER_PORT is getPortFromXGBoostJob(Worker): the Worker template's
// xgboostjob-port, the port every Worker pod listens on (LightGBM's
// examples/xgboost/lightgbm-dist/main.py @v1.9.0 binds local_listen_port =
// WORKER_PORT on a Worker, MASTER_PORT on the Master). Where a target
// gives each task its own port, a Worker gets its own, the one it can
// bind; the Master, which binds MASTER_PORT, gets Worker 0's.
func (b *builder) xgboost() {
	j := b.job
	mk, wk := roleOfType(j, "master"), roleOfType(j, "worker")
	total := j.TaskCount()
	ms := kindPort(j.Roles[mk], "xgboostjob-port")
	b.set("MASTER_PORT", port(mk, 0, ms.label, ms.n))
	b.set("MASTER_ADDR", addr(mk, 0))
	b.setLit("WORLD_SIZE", strconv.Itoa(total))
	off := 0
	if b.self != mk && strings.EqualFold(j.Roles[b.self].ReplicaType, "worker") {
		off = j.Roles[mk].Instances
	}
	b.set("RANK", index(off))
	b.setLit("PYTHONUNBUFFERED", "1")
	if total > 1 {
		ws := kindPort(j.Roles[wk], "xgboostjob-port")
		wp := port(wk, 0, ws.label, ws.n)
		if b.self == wk {
			wp = port(wk, self, ws.label, ws.n)
		}
		b.set("WORKER_PORT", wp)
		n := min(total-1, j.Roles[wk].Instances)
		b.set("WORKER_ADDRS", join(n, ",", func(i int) expr { return addr(wk, i) }))
	}
}

// paddleMaster is the rendezvous role of a PaddleJob: its Master (the
// parameter-server mode, chosen by the Master's presence) or its Worker
// (the collective mode).
func paddleMaster(j *jobs.Job) (k int, ps bool) {
	if k := roleOfType(j, "master"); k >= 0 {
		return k, true
	}
	return roleOfType(j, "worker"), false
}

// paddle is pkg/controller.v1/paddlepaddle/envvar.go setPodEnv @v1.9.0, in
// its order: PYTHONUNBUFFERED=1, PADDLE_JOB_ID (the job name),
// PADDLE_NNODES (all replicas), PADDLE_MASTER (host:port of Master 0 in
// parameter-server mode, Worker 0 in collective mode); in
// parameter-server mode PADDLE_SERVER_NUM=1 on the Master and
// PADDLE_TRAINER_NUM=1 on the Worker.
//
// The rendezvous task (index 0 of that type) alone first got POD_IP_DUMMY,
// its own pod IP (a fieldRef to status.podIP), and then
// PADDLE_MASTER=$(POD_IP_DUMMY):port, which the kubelet expanded to that
// IP: it binds its own address, not the service name the others dial
// (paddle.distributed.launch listens on PADDLE_MASTER there). Here
// POD_IP_DUMMY is the task's own address, set on index 0 only, and
// PADDLE_MASTER's value, task 0's address and port, is the same for it.
// A pod IP is both the pod's own address and the one its peers dial; so is
// the task address on every target, because a Kubeflow kind's task shares
// its host's network there (local and Slurm processes, Nomad raw_exec, and
// Docker with network_mode host: only LeinaoPAI's fixed container ports
// bridge a container), so Paddle's master can bind it and its peers reach it.
func (b *builder) paddle() {
	j := b.job
	mk, ps := paddleMaster(j)
	s := kindPort(j.Roles[mk], "master")
	b.setLit("PYTHONUNBUFFERED", "1")
	b.setLit("PADDLE_JOB_ID", j.Name)
	b.setLit("PADDLE_NNODES", strconv.Itoa(j.TaskCount()))
	if b.self == mk {
		b.setFirst("POD_IP_DUMMY", addr(mk, self))
	}
	b.set("PADDLE_MASTER", cat(addr(mk, 0), lit(":"), port(mk, 0, s.label, s.n)))
	if !ps {
		return
	}
	if b.self == mk {
		b.setLit("PADDLE_SERVER_NUM", "1")
	} else {
		b.setLit("PADDLE_TRAINER_NUM", "1")
	}
}

// jax is pkg/controller.v1/jax/envvar.go setPodEnv @v1.9.0, in its order:
// PYTHONUNBUFFERED=1, COORDINATOR_PORT (Worker's jaxjob-port),
// COORDINATOR_ADDRESS (Worker 0, without the port), NUM_PROCESSES (all
// replicas), PROCESS_ID (the index).
func (b *builder) jax() {
	j := b.job
	wk := roleOfType(j, "worker")
	s := kindPort(j.Roles[wk], "jaxjob-port")
	b.setLit("PYTHONUNBUFFERED", "1")
	b.set("COORDINATOR_PORT", port(wk, 0, s.label, s.n))
	b.set("COORDINATOR_ADDRESS", addr(wk, 0))
	b.setLit("NUM_PROCESSES", strconv.Itoa(j.TaskCount()))
	b.set("PROCESS_ID", index(0))
}

// mxnet is pkg/controller.v1/mxnet/mxnet.go SetPodEnv @v1.8.1, in its
// order: MX_CONFIG (encoding/json of {cluster, labels, task}: cluster maps
// every replica type to [{url, port}] of its tasks, labels maps it to its
// template's tuner-server-key annotation, task is {type, index}; map keys
// sorted), DMLC_PS_ROOT_PORT and DMLC_PS_ROOT_URI (Scheduler 0, or 0 and
// "" without one), DMLC_NUM_SERVER, DMLC_NUM_WORKER (replicas of Server and
// Worker), DMLC_ROLE (the replica type), DMLC_USE_KUBERNETES=1, and on
// Workers DMLC_WORKER_ID (the index, for BytePS).
func (b *builder) mxnet() {
	j := b.job
	me := tfType(j.Roles[b.self])
	b.set("MX_CONFIG", b.sharedExpr("mxconfig", b.self, func() expr {
		return cat(lit(`{"cluster":`), b.mxCluster(), lit(`,"labels":`+mxLabels(j)+`,"task":{"type":`+jsonString(me)+`,"index":`), index(0), lit(`}}`))
	}))
	if sk := roleOfType(j, "scheduler"); sk >= 0 && j.Roles[sk].Instances > 0 {
		s := kindPort(j.Roles[sk], "mxjob-port")
		b.set("DMLC_PS_ROOT_PORT", port(sk, 0, s.label, s.n))
		b.set("DMLC_PS_ROOT_URI", addr(sk, 0))
	} else {
		b.setLit("DMLC_PS_ROOT_PORT", "0")
		b.setLit("DMLC_PS_ROOT_URI", "")
	}
	count := func(rt string) string {
		n := 0
		for _, r := range j.Roles {
			if tfType(r) == rt {
				n += r.Instances
			}
		}
		return strconv.Itoa(n)
	}
	b.setLit("DMLC_NUM_SERVER", count("server"))
	b.setLit("DMLC_NUM_WORKER", count("worker"))
	b.setLit("DMLC_ROLE", me)
	b.setLit("DMLC_USE_KUBERNETES", "1")
	if me == "worker" {
		b.set("DMLC_WORKER_ID", index(0))
	}
}

// mxOrder is the roles in MX_CONFIG's key order.
func mxOrder(j *jobs.Job) []int {
	ks := make([]int, len(j.Roles))
	for k := range ks {
		ks[k] = k
	}
	sort.SliceStable(ks, func(a, b int) bool { return tfType(j.Roles[ks[a]]) < tfType(j.Roles[ks[b]]) })
	return ks
}

func (b *builder) mxCluster() expr {
	j := b.job
	var parts []expr
	parts = append(parts, lit("{"))
	for n, k := range mxOrder(j) {
		r := j.Roles[k]
		if n > 0 {
			parts = append(parts, lit(","))
		}
		s := kindPort(r, "mxjob-port")
		parts = append(parts, lit(jsonString(tfType(r))+":["), join(r.Instances, ",", func(i int) expr {
			return cat(lit(`{"url":"`), addr(k, i), lit(`","port":`), port(k, i, s.label, s.n), lit("}"))
		}), lit("]"))
	}
	parts = append(parts, lit("}"))
	return cat(parts...)
}

func mxLabels(j *jobs.Job) string {
	var b strings.Builder
	b.WriteString("{")
	for n, k := range mxOrder(j) {
		if n > 0 {
			b.WriteString(",")
		}
		key := ""
		if j.Extras.MXNet != nil {
			key = j.Extras.MXNet.TunerKeys[j.Roles[k].Name]
		}
		b.WriteString(jsonString(tfType(j.Roles[k])) + ":" + jsonString(key))
	}
	b.WriteString("}")
	return b.String()
}

// checkKinds: what each contract needs of the job (its operator's webhook
// guarantees it for the kind's own jobs; a job of another format that asks
// for the contract must have the replica types it reads).
func checkKinds(j *jobs.Job, cs []string, bad func(jobs.Pos, string, string, ...any)) {
	need := func(c, rt, label, why string) {
		k := roleOfType(j, rt)
		switch {
		case k < 0:
			bad(j.NamePos, "Contract "+c+" needs a "+rt+" role", "The %s contract reads the %s replica type (%s); the job has no role of that replica type.", c, rt, why)
		case j.Roles[k].Instances < 1:
			bad(j.Roles[k].Pos, "Contract "+c+" needs a "+rt+" task", "The %s contract reads task 0 of role %q (%s), which has no instances.", c, j.Roles[k].Name, why)
		case kindPort(j.Roles[k], label) == nil:
			bad(j.Roles[k].Pos, "No "+label+" port", "Role %q declares no port; the %s contract needs its %s (the reader adds it to every job of the kind).", j.Roles[k].Name, c, label)
		}
	}
	if has(cs, jobs.ContractXGBoost) {
		need("xgboost", "master", "xgboostjob-port", "MASTER_ADDR, MASTER_PORT")
		if j.TaskCount() > 1 {
			need("xgboost", "worker", "xgboostjob-port", "WORKER_ADDRS, WORKER_PORT")
		}
	}
	if has(cs, jobs.ContractPaddle) {
		if k, ps := paddleMaster(j); ps || k >= 0 {
			need("paddle", map[bool]string{true: "master", false: "worker"}[ps], "master", "PADDLE_MASTER")
		} else {
			need("paddle", "worker", "master", "PADDLE_MASTER")
		}
	}
	if has(cs, jobs.ContractJAX) {
		need("jax", "worker", "jaxjob-port", "COORDINATOR_ADDRESS, COORDINATOR_PORT")
	}
	if has(cs, jobs.ContractMXNet) {
		seen := map[string]string{}
		for _, r := range j.Roles {
			t := tfType(r)
			if o, dup := seen[t]; dup {
				bad(r.Pos, "Roles share an MX_CONFIG type", "Roles %q and %q both become %q in MX_CONFIG; rename one.", o, r.Name, t)
			}
			seen[t] = r.Name
			if r.Instances > 0 && kindPort(r, "mxjob-port") == nil {
				bad(r.Pos, "No mxjob-port port", "Role %q declares no port; MX_CONFIG lists url and port of every task.", r.Name)
			}
		}
	}
}
