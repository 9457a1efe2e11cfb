package contract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// torch is PyTorchJob v1.9 (spec/kubeflow.md §4.2), in the operator's
// order: PYTHONUNBUFFERED; with a Master: MASTER_PORT, PET_MASTER_PORT,
// MASTER_ADDR, PET_MASTER_ADDR, WORLD_SIZE, RANK, PET_NODE_RANK; then
// PET_NPROC_PER_NODE; then the elastic variables or PET_NNODES.
//
// MASTER_ADDR is the master task's address (k8s gave the service name
// <job>-master-0). For jobs that are not PyTorchJobs (opt-in with
// -contract torch) the "master" is the first task of the first role and its
// port the first role's first declared port (pytorchjob-port / tfjob-port
// for Kubeflow roles); RANK is the task's ordinal over all roles in job
// order (roles before it, then its index), so the first role's task 0 is
// rank 0 as the Master is.
func (b *builder) torch() {
	j := b.job
	if torchPreV1(j) {
		b.torchPreV1()
		return
	}
	b.setLit("PYTHONUNBUFFERED", "1")
	mk, rankOff := torchMaster(j), 0
	nproc, nprocInt := torchNproc(j)
	if mk >= 0 {
		s := torchPort(j.Roles[mk])
		b.set("MASTER_PORT", port(mk, 0, s.label, s.n))
		b.set("PET_MASTER_PORT", port(mk, 0, s.label, s.n))
		b.set("MASTER_ADDR", addr(mk, 0))
		b.set("PET_MASTER_ADDR", addr(mk, 0))
		b.setLit("WORLD_SIZE", strconv.Itoa(j.TaskCount()*nprocInt))
		if j.Source.Format == jobs.FormatPyTorchJob {
			if b.self != mk {
				rankOff = 1 // RANK = index + 1 on Workers
			}
		} else {
			for k := range b.self {
				rankOff += j.Roles[k].Instances
			}
		}
		b.set("RANK", index(rankOff))
		b.set("PET_NODE_RANK", index(rankOff))
	}
	ep := j.Extras.ElasticPolicy
	if nproc != "" {
		b.setLit("PET_NPROC_PER_NODE", nproc)
	}
	if ep == nil {
		b.setLit("PET_NNODES", strconv.Itoa(j.TaskCount()))
		return
	}
	b.set("PET_RDZV_ENDPOINT", b.rdzvEndpoint(ep))
	backend := "c10d"
	if s, ok := ep["rdzvBackend"].(string); ok && s != "" {
		backend = s
	}
	b.setLit("PET_RDZV_BACKEND", backend)
	w := torchWorkers(j)
	lo, okLo := intOf(ep["minReplicas"])
	hi, okHi := intOf(ep["maxReplicas"])
	switch {
	case !okLo && !okHi:
		lo, hi = w, w
	case !okLo:
		lo = hi
	case !okHi:
		hi = lo
	}
	b.setLit("PET_NNODES", fmt.Sprintf("%d:%d", lo, hi))
	if v, ok := intOf(ep["maxRestarts"]); ok {
		b.setLit("PET_MAX_RESTARTS", strconv.Itoa(v))
	}
	if v, ok := intOf(ep["nProcPerNode"]); ok {
		b.setLit("PET_NPROC_PER_NODE", strconv.Itoa(v))
	}
	if s, ok := ep["rdzvId"].(string); ok {
		b.setLit("PET_RDZV_ID", s)
	}
	if conf, ok := ep["rdzvConf"].([]any); ok && len(conf) > 0 {
		var kv []string
		for _, c := range conf {
			m, _ := c.(map[string]any)
			kv = append(kv, fmt.Sprint(m["key"])+"="+fmt.Sprint(m["value"]))
		}
		b.setLit("PET_RDZV_CONF", strings.Join(kv, ","))
	}
	if s, ok := ep["standalone"].(bool); ok && s {
		b.setLit("PET_STANDALONE", "")
	}
}

// torchPreV1 reports whether the job is a PyTorchJob of pytorch-operator
// (apiVersion before kubeflow.org/v1), whose variables differ from v1.9's.
func torchPreV1(j *jobs.Job) bool {
	g := j.KubeflowGen()
	return j.Source.Format == jobs.FormatPyTorchJob && (g == jobs.KubeflowGenV1Alpha1 || g == jobs.KubeflowGenPreV1)
}

// torchPreV1 is pytorch-operator's setClusterSpec (pkg/controller.v2/pytorch/pod.go
// @v0.3.0, the same through pkg/controller.v1beta2 @v1.0.0-rc.1; the
// v1alpha1 pkg/trainer/replicas.go CreatePodWithIndex before PR #110), in
// its order: MASTER_PORT, MASTER_ADDR, WORLD_SIZE, RANK, PYTHONUNBUFFERED.
// The master's own MASTER_ADDR is "localhost" (training-operator v1.4, PR
// #1453, gave every pod the service name); WORLD_SIZE counts pods (no
// nprocPerNode, which came in v1.7); PYTHONUNBUFFERED is "0" (v1.7, PR
// #1860, made it "1"); there are no PET_* variables. The v1alpha1 operator
// set a TF_CONFIG first (torchV1Alpha1TFConfig).
func (b *builder) torchPreV1() {
	j := b.job
	if j.KubeflowGen() == jobs.KubeflowGenV1Alpha1 {
		b.set("TF_CONFIG", b.torchV1Alpha1TFConfig())
	}
	if mk := torchMaster(j); mk >= 0 {
		s := torchPort(j.Roles[mk])
		b.set("MASTER_PORT", port(mk, 0, s.label, s.n))
		rank := 0
		if b.self == mk {
			b.setLit("MASTER_ADDR", "localhost")
		} else {
			b.set("MASTER_ADDR", addr(mk, 0))
			rank = 1 // RANK = index + 1 on Workers
		}
		b.setLit("WORLD_SIZE", strconv.Itoa(j.TaskCount()))
		b.set("RANK", index(rank))
	}
	b.setLit("PYTHONUNBUFFERED", "0")
}

// torchV1Alpha1TFConfig is the TF_CONFIG the v1alpha1 PyTorch operator set
// "for POC" (pkg/trainer/replicas.go CreatePodWithIndex, training.go
// ClusterSpec, before PR #110): the TFJob shape over master and worker at
// the master port, with the task's index being its RANK, so a worker's
// index is one more than its position in the list, as upstream.
func (b *builder) torchV1Alpha1TFConfig() expr {
	roles := make([]int, len(b.job.Roles))
	for k := range roles {
		roles[k] = k
	}
	me, off := tfType(b.job.Roles[b.self]), 0
	if me != "master" {
		off = 1 // RANK = index + 1 on Workers
	}
	return cat(lit(`{"cluster":`), b.clusterOf(roles, torchPort), lit(`,"task":{"type":`+jsonString(me)+`,"index":`), index(off), lit(`},"environment":"cloud"}`))
}

// torchMaster is the role whose task 0 is the master: the PyTorchJob
// Master, or for other jobs the first role; -1 when there is none.
func torchMaster(j *jobs.Job) int {
	if j.Source.Format == jobs.FormatPyTorchJob {
		for k, r := range j.Roles {
			if strings.EqualFold(r.ReplicaType, "master") && r.Instances > 0 {
				return k
			}
		}
		return -1
	}
	if len(j.Roles) > 0 && j.Roles[0].Instances > 0 {
		return 0
	}
	return -1
}

func torchWorkers(j *jobs.Job) int {
	for _, r := range j.Roles {
		if strings.EqualFold(r.ReplicaType, "worker") {
			return r.Instances
		}
	}
	return 0
}

// torchNproc is PET_NPROC_PER_NODE (as written, defaulted to "auto" unless
// the deprecated elasticPolicy.nProcPerNode is set) and the integer WORLD_SIZE
// multiplies by (the value if it is an integer, else 1).
func torchNproc(j *jobs.Job) (string, int) {
	spec := ""
	for _, r := range j.Roles {
		if r.NprocPerNodeSpec != "" {
			spec = r.NprocPerNodeSpec
		} else if r.NprocPerNode > 0 {
			spec = strconv.Itoa(r.NprocPerNode)
		}
		if spec != "" {
			break
		}
	}
	if spec == "" {
		if _, ok := intOf(j.Extras.ElasticPolicy["nProcPerNode"]); ok {
			return "", 1
		}
		spec = "auto"
	}
	if n, err := strconv.Atoi(spec); err == nil {
		return spec, n
	}
	return spec, 1
}

// rdzvEndpoint is <rdzvHost or worker 0's address>:<rdzvPort or the
// Worker's port>.
func (b *builder) rdzvEndpoint(ep map[string]any) expr {
	j := b.job
	wk := -1
	for k, r := range j.Roles {
		if strings.EqualFold(r.ReplicaType, "worker") {
			wk = k
		}
	}
	var h, p expr
	if s, ok := ep["rdzvHost"].(string); ok && s != "" {
		h = lit(s)
	} else {
		h = addr(wk, 0)
	}
	if v, ok := intOf(ep["rdzvPort"]); ok {
		p = lit(strconv.Itoa(v))
	} else {
		s := torchPort(j.Roles[wk])
		p = port(wk, 0, s.label, s.n)
	}
	return cat(h, lit(":"), p)
}

func intOf(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	}
	return 0, false
}

func checkTorch(j *jobs.Job, bad func(jobs.Pos, string, string, ...any)) {
	if torchPreV1(j) && j.KubeflowGen() == jobs.KubeflowGenV1Alpha1 {
		for _, r := range j.Roles {
			if r.Instances > 0 && torchPort(r) == nil {
				bad(r.Pos, "Role has no port for TF_CONFIG", "Role %q has no port; the v1alpha1 PyTorchJob TF_CONFIG lists host:masterPort of every task. Declare pytorchjob-port.", r.Name)
			}
		}
	}
	if mk := torchMaster(j); mk >= 0 && torchPort(j.Roles[mk]) == nil {
		bad(j.Roles[mk].Pos, "No master port for torch", "Role %q provides MASTER_ADDR/MASTER_PORT but declares no port; declare one (pytorchjob-port, or a ports/portList entry for OpenPAI).", j.Roles[mk].Name)
	}
	if ep := j.Extras.ElasticPolicy; ep != nil {
		host, _ := ep["rdzvHost"].(string)
		_, hasPort := intOf(ep["rdzvPort"])
		wk := -1
		for k, r := range j.Roles {
			if strings.EqualFold(r.ReplicaType, "worker") {
				wk = k
			}
		}
		switch {
		case wk < 0:
			bad(j.NamePos, "elasticPolicy needs a Worker", "PyTorchJob elasticPolicy requires a Worker replica.")
		case (host == "" || !hasPort) && (j.Roles[wk].Instances == 0 || torchPort(j.Roles[wk]) == nil):
			bad(j.Roles[wk].Pos, "No rendezvous endpoint", "PET_RDZV_ENDPOINT needs Worker 0 and its pytorchjob-port, or elasticPolicy rdzvHost and rdzvPort.")
		}
	}
}
