package kubeflow

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/yamlpos"
	"go.yaml.in/yaml/v3"
)

var pytorchTypes = &replicaSet{
	field:          "pytorchReplicaSpecs",
	canonical:      map[string]string{"master": "Master", "worker": "Worker"},
	unknownIsError: true,
	defaultRestart: "OnFailure",
	fl:             pytorchFlavour,
}

// readPyTorchJob reads PyTorchJob v1alpha1 (list form, pytorch-operator),
// v1alpha2, v1beta1, v1beta2 (pytorch-operator, map form, policy fields at
// the top of spec) and v1 (both the pytorch-operator and the
// training-operator runPolicy form).
func (r *reader) readPyTorchJob(job *jobs.Job, spec *mapping, apiNode *yaml.Node) {
	job.Contracts = []string{jobs.ContractTorch}
	job.Completion.Kind = jobs.CompletionPyTorch
	api := job.Source.Version
	switch api {
	case "kubeflow.org/v1alpha1", "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "kubeflow.org/v1beta2", "kubeflow.org/v1":
	default:
		if api != "" {
			r.warnf(apiNode, "Unknown PyTorchJob apiVersion", "apiVersion %q is not one jobshift knows (kubeflow.org/v1alpha1 … v1); the spec is read by its shape.", api)
		}
	}
	if api == "kubeflow.org/v1alpha1" || (spec.has("replicaSpecs") && !spec.has("pytorchReplicaSpecs")) {
		r.pytorchListForm(job, spec)
		spec.warnUnknown()
		return
	}
	r.runPolicy(job, spec, "None") // PyTorchJob always defaulted cleanPodPolicy to None
	r.replicaMap(job, spec, pytorchTypes)
	v1 := api == "kubeflow.org/v1"
	elastic := spec.field("elasticPolicy")
	if elastic.val != nil {
		if !v1 {
			r.warnf(elastic.key, "elasticPolicy in a pre-v1 PyTorchJob", "elasticPolicy arrived with kubeflow.org/v1 (training-operator v1.3); jobshift reads it anyway.")
		}
		r.elasticPolicy(job, elastic)
	}
	if f := spec.field("nprocPerNode"); f.val != nil {
		if v, ok := r.str(f.val, "spec.nprocPerNode"); ok {
			n, err := strconv.Atoi(v)
			switch {
			case v == "auto" || v == "cpu" || v == "gpu":
			case err == nil && n >= 1:
			default:
				r.errorf(f.val, "Invalid nprocPerNode", "nprocPerNode %q must be auto, cpu, gpu or a positive integer (as a string).", v)
				v = ""
			}
			for _, role := range job.Roles {
				role.NprocPerNodeSpec = v
				if err == nil && n >= 1 {
					role.NprocPerNode = n
				}
			}
		}
		if elastic.val != nil && r.silent().mapOf(elastic.val, "").has("nProcPerNode") {
			r.errorf(f.key, "nprocPerNode given twice", "spec.nprocPerNode and spec.elasticPolicy.nProcPerNode are mutually exclusive; the operator rejects the job. Keep spec.nprocPerNode (elasticPolicy.nProcPerNode is deprecated).")
		}
	}
	r.pytorchRules(job, !v1, elastic)
}

// pytorchRules are the PyTorch webhook's checks: Master.replicas must be 1,
// Worker.replicas at least 1, elasticPolicy needs Worker; pytorch-operator
// (before kubeflow.org/v1) also required a Master.
func (r *reader) pytorchRules(job *jobs.Job, masterRequired bool, elastic field) {
	master, worker := job.Role("master"), job.Role("worker")
	if master != nil && master.Instances != 1 {
		r.errorf(r.node(r.firstPos(master.InstancesPos, master.Pos)), "Master must have one replica", "A PyTorchJob's Master has exactly 1 replica (it is rank 0 and MASTER_ADDR); the operator rejects %d. Move the others to Worker.", master.Instances)
	}
	if worker != nil && worker.Instances < 1 {
		r.errorf(r.node(r.firstPos(worker.InstancesPos, worker.Pos)), "Worker needs a replica", "A PyTorchJob's Worker needs at least 1 replica; the operator rejects 0. Remove the Worker or give it replicas.")
	}
	if masterRequired && master == nil && len(job.Roles) > 0 {
		r.errorf(r.node(job.Roles[0].Pos), "Missing Master", "pytorch-operator (%s) requires a Master replica; add one (replicas: 1).", job.Source.Version)
	}
	if elastic.val != nil && worker == nil {
		r.errorf(elastic.key, "elasticPolicy without Worker", "elasticPolicy scales the Worker replicas; the operator rejects an elastic job without Worker.")
	}
}

func (r *reader) firstPos(ps ...jobs.Pos) jobs.Pos {
	for _, p := range ps {
		if !p.IsZero() {
			return p
		}
	}
	return jobs.Pos{}
}

// elasticPolicy keeps the policy verbatim in Extras.ElasticPolicy (the torch
// contract derives PET_NNODES, PET_RDZV_* from it, applying the operator's
// defaults: min/max copied from each other or from Worker.replicas,
// rdzvBackend c10d, rdzv host = worker 0) and checks the fields it knows.
func (r *reader) elasticPolicy(job *jobs.Job, f field) {
	ep := r.mapOf(f.val, "spec.elasticPolicy")
	v, whole := yamlpos.Value(f.val, yamlpos.ValueOptions{LastWins: true, MaxNodes: 10000})
	if m, ok := v.(map[string]any); ok {
		job.Extras.ElasticPolicy = m
	}
	if !whole {
		r.errorf(f.val, "elasticPolicy too large", "elasticPolicy expands to more than 10000 YAML nodes (through anchors and aliases); write it out plainly.")
	}
	var minR, maxR int64 = -1, -1
	for _, k := range []string{"minReplicas", "maxReplicas", "maxRestarts", "rdzvPort"} {
		if n := ep.get(k); n != nil {
			v, ok := r.integer(n, "elasticPolicy."+k)
			if !ok {
				continue
			}
			if v < 0 || (k == "rdzvPort" && (v < 1 || v > 65535)) {
				r.errorf(n, "Invalid elasticPolicy."+k, "elasticPolicy.%s %d is out of range.", k, v)
			}
			switch k {
			case "minReplicas":
				minR = v
			case "maxReplicas":
				maxR = v
			}
		}
	}
	if minR >= 0 && maxR >= 0 && minR > maxR {
		r.errorf(ep.get("minReplicas"), "minReplicas above maxReplicas", "elasticPolicy.minReplicas (%d) is larger than maxReplicas (%d).", minR, maxR)
	}
	if n := ep.get("rdzvBackend"); n != nil {
		if v, ok := r.str(n, "elasticPolicy.rdzvBackend"); ok && v != "c10d" && v != "etcd" && v != "etcd-v2" {
			r.errorf(n, "Invalid rdzvBackend", "elasticPolicy.rdzvBackend %q must be c10d, etcd or etcd-v2.", v)
		}
	}
	for _, k := range []string{"rdzvHost", "rdzvId"} {
		if n := ep.get(k); n != nil {
			r.str(n, "elasticPolicy."+k)
		}
	}
	if n := ep.get("nProcPerNode"); n != nil {
		if v, ok := r.integer(n, "elasticPolicy.nProcPerNode"); ok && v >= 1 && v < 1<<20 {
			for _, role := range job.Roles {
				role.NprocPerNode = int(v)
			}
		}
	}
	ep.ignore("rdzvConf", "standalone")
	if m := ep.field("metrics"); m.val != nil {
		r.warnf(m.key, "Autoscaling metrics ignored", "elasticPolicy.metrics drives a Kubernetes HorizontalPodAutoscaler; jobshift runs the Worker replica count given and does not autoscale.")
	}
	ep.warnUnknown()
}

// pytorchListForm reads pytorch-operator's kubeflow.org/v1alpha1: a
// replicaSpecs list with replicaType MASTER / WORKER, spec.masterPort
// (default 23456) and spec.backend.
func (r *reader) pytorchListForm(job *jobs.Job, spec *mapping) {
	port := jobs.Port{Label: pytorchFlavour.portName, Count: 1, Number: pytorchFlavour.defaultPort, Implicit: true}
	if f := spec.field("masterPort"); f.val != nil {
		v := scalar(f.val)
		if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= 65535 {
			port = jobs.Port{Label: pytorchFlavour.portName, Count: 1, Number: n, Pos: r.pos(f.val)}
		} else {
			r.errorf(f.val, "Invalid masterPort", "spec.masterPort %s is not a port number between 1 and 65535.", describe(f.val))
		}
	}
	if f := spec.field("backend"); f.val != nil {
		b, _ := r.str(f.val, "spec.backend")
		r.warnf(f.key, "backend not passed on", "spec.backend (%s) only told the v1alpha1 operator which backend the job uses; jobshift passes nothing for it. The program must choose the backend itself, as it did on Kubernetes.", b)
	}
	r.runPolicy(job, spec, "None")
	listF := spec.field("replicaSpecs")
	items := r.seq(listF.val, "spec.replicaSpecs")
	if len(items) == 0 {
		r.errorf(r.or(listF.key, spec.node), "No replicas", "spec.replicaSpecs must list at least one replica (replicaType MASTER or WORKER).")
		return
	}
	for i, it := range items {
		where := fmt.Sprintf("spec.replicaSpecs[%d]", i)
		m := r.mapOf(it, where)
		typNode := m.get("replicaType")
		typ := "MASTER"
		if typNode != nil {
			typ, _ = r.str(typNode, where+".replicaType")
		}
		if typ != "MASTER" && typ != "WORKER" {
			r.errorf(r.or(typNode, it), "Invalid replicaType", "%s.replicaType %q must be MASTER or WORKER.", where, typ)
			continue
		}
		name := strings.ToLower(typ)
		if job.Role(name) != nil {
			r.errorf(r.or(typNode, it), "Replica type given twice", "%s is listed twice; give it one entry with the total replicas.", typ)
			continue
		}
		role := newRole(name, r.pos(it))
		r.instances(role, m.field("replicas"), where)
		p := port
		pr := r.podTemplate(role, m.get("template"), pytorchFlavour, where+".template", &p)
		role.RestartPolicy = "Always"
		if pr != nil {
			if v, ok := r.restartPolicy(pr, where+".template.spec.restartPolicy", false); ok {
				role.RestartPolicy = v
			}
		} else {
			r.warnf(it, "No restartPolicy", "%s sets no template.spec.restartPolicy; Kubernetes' default Always applies and the task is restarted even after it succeeds. Set restartPolicy: OnFailure.", where)
		}
		m.warnUnknown()
		job.Roles = append(job.Roles, role)
	}
	r.pytorchRules(job, true, field{})
}
