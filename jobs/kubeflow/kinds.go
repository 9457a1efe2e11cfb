package kubeflow

import (
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// The other training-operator v1 kinds: XGBoostJob, PaddleJob and JAXJob
// (kubeflow.org/v1, read as training-operator v1.9.0; their webhooks,
// defaults and controllers' variables are the same through v1.9.4, which
// changed only ReconcileJobs' cleanup: translate/completion Y10) and MXJob
// (v1.8.1, its last release). Each is the map form TFJob and PyTorchJob share, with
// the kind's defaults (pkg/apis/kubeflow.org/v1/<kind>_types.go and
// _defaults.go: container name, port name and number, restart policy,
// cleanPodPolicy None, replicas 1) and its webhook's refusals
// (pkg/webhooks/<kind>/ @v1.9.0; MXJob: pkg/apis/kubeflow.org/v1/
// mxnet_validation.go @v1.8.1).

var (
	// xgboost_types.go @v1.9.0: XGBoostJobDefaultContainerName "xgboost",
	// PortName "xgboostjob-port", Port 9999; xgboost.go SetPodEnv.
	xgboostFlavour = &flavour{container: "xgboost", portName: "xgboostjob-port", defaultPort: 9999,
		operatorEnv: []string{"MASTER_PORT", "MASTER_ADDR", "WORLD_SIZE", "RANK", "PYTHONUNBUFFERED", "WORKER_PORT", "WORKER_ADDRS"}}
	// paddlepaddle_types.go @v1.9.0: "paddle", port "master" 36543;
	// envvar.go setPodEnv.
	paddleFlavour = &flavour{container: "paddle", portName: "master", defaultPort: 36543,
		operatorEnv: []string{"PYTHONUNBUFFERED", "PADDLE_JOB_ID", "PADDLE_NNODES", "POD_IP_DUMMY", "PADDLE_MASTER", "PADDLE_SERVER_NUM", "PADDLE_TRAINER_NUM"}}
	// jax_types.go @v1.9.0: "jax", port "jaxjob-port" 6666; envvar.go.
	jaxFlavour = &flavour{container: "jax", portName: "jaxjob-port", defaultPort: 6666,
		operatorEnv: []string{"PYTHONUNBUFFERED", "COORDINATOR_PORT", "COORDINATOR_ADDRESS", "NUM_PROCESSES", "PROCESS_ID"}}
	// mxnet_types.go @v1.8.1: "mxnet", port "mxjob-port" 9091; mxnet.go
	// SetPodEnv.
	mxnetFlavour = &flavour{container: "mxnet", portName: "mxjob-port", defaultPort: 9091, envPrefix: "DMLC_",
		operatorEnv: []string{"MX_CONFIG"}}
)

// kindSpec is one of the four kinds: its replica set, contract, and the
// restart default (XGBoostJobDefaultRestartPolicy Never,
// PaddleJobDefaultRestartPolicy OnFailure, JAXJobDefaultRestartPolicy
// Never, MXJobDefaultRestartPolicy Never).
type kindSpec struct {
	kind     string
	rs       *replicaSet
	contract string
}

// Replica type keys: the XGBoostJob, PaddleJob and JAXJob validating
// webhooks (the only admission webhooks of v1.9.0: manifests/base/webhook/
// manifests.yaml) check every key with slices.Contains against the
// canonical types before any defaulting, so "master" or "WORKER" is
// refused ("Unsupported value") although SetDefaults_<kind> would have
// camel-cased it; XGBoost's "Master must be present" then fails too.
// MXJob's webhook @v1.8.1 only warns that MXJob is deprecated and
// ValidateV1MXJob names no type, so any key is accepted and
// SetDefaults_MXJob camel-cases Scheduler, Server and Worker (not the
// tuner types, which stay as written; MX_CONFIG lower-cases every type).
var otherKinds = map[jobs.Format]kindSpec{
	jobs.FormatXGBoostJob: {"XGBoostJob", &replicaSet{field: "xgbReplicaSpecs", canonical: map[string]string{"master": "Master", "worker": "Worker"},
		unknownIsError: true, defaultRestart: "Never", fl: xgboostFlavour,
		exactKeys: "pkg/webhooks/xgboost/xgboostjob_webhook.go validateXGBReplicaSpecs @v1.9.0"}, jobs.ContractXGBoost},
	jobs.FormatPaddleJob: {"PaddleJob", &replicaSet{field: "paddleReplicaSpecs", canonical: map[string]string{"master": "Master", "worker": "Worker"},
		unknownIsError: true, defaultRestart: "OnFailure", fl: paddleFlavour,
		exactKeys: "pkg/webhooks/paddlepaddle/paddlepaddle_webhook.go validateSpec @v1.9.0"}, jobs.ContractPaddle},
	jobs.FormatJAXJob: {"JAXJob", &replicaSet{field: "jaxReplicaSpecs", canonical: map[string]string{"worker": "Worker"},
		unknownIsError: true, defaultRestart: "Never", fl: jaxFlavour,
		exactKeys: "pkg/webhooks/jax/jaxjob_webhook.go validateJAXReplicaSpecs @v1.9.0"}, jobs.ContractJAX},
	// mxnet_validation.go @v1.8.1 checks no type name: another key is
	// accepted and listed in MX_CONFIG (genClusterSpec).
	jobs.FormatMXJob: {"MXJob", &replicaSet{field: "mxReplicaSpecs", canonical: map[string]string{"scheduler": "Scheduler", "server": "Server", "worker": "Worker",
		"tunertracker": "TunerTracker", "tunerserver": "TunerServer", "tuner": "Tuner"},
		defaultRestart: "Never", fl: mxnetFlavour, clusterVar: "MX_CONFIG",
		variantWins: map[string]bool{"scheduler": true, "server": true, "worker": true}}, jobs.ContractMXNet},
}

// readOtherKind reads an XGBoostJob, PaddleJob, JAXJob or MXJob. Their
// completion follows the pytorch rule family (a deciding replica type,
// else every Worker; translate/completion README Y-rules), which is what
// each controller's UpdateJobStatus does; MXJob's decider is its Scheduler.
func (r *reader) readOtherKind(job *jobs.Job, spec *mapping, apiNode *yaml.Node) {
	ks := otherKinds[job.Source.Format]
	job.Contracts = []string{ks.contract}
	job.Completion.Kind = jobs.CompletionPyTorch
	if api := job.Source.Version; api != "kubeflow.org/v1" && api != "" {
		r.lossyf(apiNode, "Not a training-operator "+ks.kind, "apiVersion %q is not training-operator's: it served %s only as kubeflow.org/v1, whose environment and rules jobshift reproduces. This file is for another operator (%s), which may have set other variables. Change the apiVersion to kubeflow.org/v1 if the job fits that operator; with -lossy jobshift reads it as kubeflow.org/v1.", api, ks.kind, otherOperator(api))
	}
	r.runPolicy(job, spec, "None") // SetDefaults_<kind>: CleanPodPolicyNone
	if job.Source.Format == jobs.FormatXGBoostJob || job.Source.Format == jobs.FormatPaddleJob {
		r.managedBy(spec)
	}
	r.replicaMap(job, spec, ks.rs)
	switch job.Source.Format {
	case jobs.FormatXGBoostJob:
		r.xgboostRules(job)
	case jobs.FormatPaddleJob:
		if f := spec.field("elasticPolicy"); f.val != nil {
			r.warnf(f.key, "elasticPolicy ignored", "PaddleJob elasticPolicy lets the operator scale the Worker replicas between minReplicas and maxReplicas; jobshift runs the replicas given and does not scale (the operator passed nothing of it to the tasks: pkg/controller.v1/paddlepaddle/envvar.go @v1.9.0).")
		}
	case jobs.FormatMXJob:
		r.mxnetSpec(job, spec)
	}
	spec.warnUnknown()
}

// xgboostRules are pkg/webhooks/xgboost/xgboostjob_webhook.go @v1.9.0
// validateXGBReplicaSpecs: a Master is required, and its replicas must be
// written and be 1 (the webhook sees the job before defaulting).
func (r *reader) xgboostRules(job *jobs.Job) {
	master := job.Role("master")
	switch {
	case len(job.Roles) == 0:
	case master == nil:
		r.errorf(r.node(job.Roles[0].Pos), "Missing Master", "An XGBoostJob needs a Master replica (rank 0, MASTER_ADDR); the operator's webhook rejects the job without one (\"xgbReplicaSpecs[Master]: must be present\"). Add Master with replicas: 1.")
	case master.InstancesPos.IsZero():
		r.errorf(r.node(master.Pos), "Master replicas not set", "The XGBoostJob webhook requires Master.replicas to be written and to be 1 (it checks before defaulting); add replicas: 1.")
	case master.Instances != 1:
		r.errorf(r.node(master.InstancesPos), "Master must have one replica", "An XGBoostJob's Master has exactly 1 replica; the operator's webhook rejects %d (\"must be 1\"). Move the others to Worker.", master.Instances)
	}
}

// mxnetSpec reads jobMode (MXTrain or MXTune, mxnet_types.go @v1.8.1),
// each template's tuner-server-key annotation (MX_CONFIG labels,
// mxnet.go genLabelsSpec) and checks mxnet_validation.go's one Scheduler.
func (r *reader) mxnetSpec(job *jobs.Job, spec *mapping) {
	mx := &jobs.MXNet{TunerKeys: map[string]string{}}
	job.Extras.MXNet = mx
	if f := spec.field("jobMode"); f.val != nil {
		if v, ok := r.str(f.val, "spec.jobMode"); ok {
			// The CRD types jobMode as a string without enum and no
			// controller code reads it (mxnet_types.go JobModeType,
			// manifests/base/crds/kubeflow.org_mxjobs.yaml @v1.8.1): another
			// value ran the same job.
			mx.JobMode = v
			if v != "MXTrain" && v != "MXTune" {
				r.warnf(f.val, "Unknown jobMode", "spec.jobMode %q is neither MXTrain nor MXTune; the operator accepted it and never read it (the same variables and rules apply either way), so jobshift runs the job as written.", v)
			}
		}
	} else {
		r.warnf(spec.node, "jobMode not set", "spec.jobMode (MXTrain or MXTune) is required by the MXJob CRD schema; jobshift reads the job as MXTrain.")
		mx.JobMode = "MXTrain"
	}
	q := r.silent()
	specs := q.mapOf(spec.get("mxReplicaSpecs"), "")
	for _, fl := range specs.fields {
		md := q.mapOf(q.mapOf(q.mapOf(fl.val, "").get("template"), "").get("metadata"), "")
		key, _ := q.str(q.mapOf(md.get("annotations"), "").get("tuner-server-key"), "")
		name := mxnetRoleName(fl.key.Value)
		if job.Role(name) != nil {
			mx.TunerKeys[name] = key
		}
	}
	job.Completion.Decider = "scheduler"
	// validateMXReplicaSpecs counts Scheduler keys, not replicas (a map
	// key cannot repeat): "more than 1 scheduler found" never fires, and
	// every task is told Scheduler 0 (DMLC_PS_ROOT_URI).
	if s := job.Role("scheduler"); s != nil && s.Instances > 1 {
		r.warnf(r.node(r.firstPos(s.InstancesPos, s.Pos)), "More than one Scheduler", "The Scheduler has %d replicas; the operator accepted them (mxnet_validation.go @v1.8.1 counts Scheduler keys, not replicas) but every task is told Scheduler 0 (DMLC_PS_ROOT_URI), so the others serve no one. Use replicas: 1.", s.Instances)
	}
}

func mxnetRoleName(key string) string {
	if c, ok := otherKinds[jobs.FormatMXJob].rs.canonical[strings.ToLower(key)]; ok {
		return strings.ToLower(c)
	}
	return strings.ToLower(key)
}

// otherOperator names the operator an apiVersion belongs to, for the
// refusal of a file written for it.
func otherOperator(api string) string {
	switch {
	case strings.HasPrefix(api, "training.kubedl.io/"):
		return "KubeDL"
	case strings.HasPrefix(api, "batch.paddlepaddle.org/"):
		return "PaddleFlow's paddle-operator"
	case strings.HasPrefix(api, "xgboostjob.kubeflow.org/"):
		return "the standalone kubeflow/xgboost-operator"
	case strings.HasPrefix(api, "kubeflow.org/"):
		return "an early standalone Kubeflow operator (mxnet-operator, xgboost-operator)"
	}
	return "not a Kubeflow one"
}

// managedBy is util.ValidateRunPolicy (pkg/common/util/webhooks.go
// @v1.9.0), which the XGBoostJob and PaddleJob webhooks call (JAXJob's does
// not): runPolicy.managedBy must name the training operator or MultiKueue
// (common_types.go KubeflowJobsController, MultiKueueController).
func (r *reader) managedBy(spec *mapping) {
	q := r.silent()
	n := q.mapOf(spec.get("runPolicy"), "").get("managedBy")
	v, ok := q.str(n, "")
	if n == nil || !ok || v == "kubeflow.org/training-operator" || v == "kueue.x-k8s.io/multikueue" {
		return
	}
	r.errorf(n, "Unsupported managedBy", "runPolicy.managedBy %q is neither kubeflow.org/training-operator nor kueue.x-k8s.io/multikueue; the operator's webhook rejects the job. Remove it (jobshift runs the job itself).", v)
}
