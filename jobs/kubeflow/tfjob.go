package kubeflow

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

var tfTypes = &replicaSet{
	field:          "tfReplicaSpecs",
	canonical:      map[string]string{"chief": "Chief", "master": "Master", "ps": "PS", "worker": "Worker", "evaluator": "Evaluator"},
	defaultRestart: "Never", // TFJobDefaultRestartPolicy, v1alpha2 … v1.9
	fl:             tfFlavour,
}

// tfGeneration is how a TFJob apiVersion is read.
type tfGeneration int

const (
	tfList     tfGeneration = iota // 2017 TfJob and kubeflow.org/v1alpha1: replicaSpecs list
	tfCaicloud                     // kubeflow.caicloud.io/v1alpha1: tfReplicaSpec list
	tfMap                          // v1alpha2 … v1: tfReplicaSpecs map
)

func tfGenerationOf(api string) (tfGeneration, bool) {
	switch api {
	case "mlkube.io/v1beta1", "tensorflow.org/v1alpha1", "kubeflow.org/v1alpha1":
		return tfList, true
	case "kubeflow.caicloud.io/v1alpha1":
		return tfCaicloud, true
	case "kubeflow.org/v1alpha2", "kubeflow.org/v1beta1", "kubeflow.org/v1beta2", "kubeflow.org/v1":
		return tfMap, true
	}
	return tfMap, false
}

func (r *reader) readTFJob(job *jobs.Job, spec *mapping, apiNode *yaml.Node) {
	job.Contracts = []string{jobs.ContractTF}
	job.Completion.Kind = jobs.CompletionTF
	gen, known := tfGenerationOf(job.Source.Version)
	if !known {
		switch {
		case spec.has("replicaSpecs") || spec.has("replica_specs"):
			gen = tfList
		case spec.has("tfReplicaSpec"):
			gen = tfCaicloud
		}
		if job.Source.Version != "" {
			r.warnf(apiNode, "Unknown TFJob apiVersion", "apiVersion %q is not one jobshift knows (kubeflow.org/v1alpha1 … v1, mlkube.io/v1beta1, tensorflow.org/v1alpha1, kubeflow.caicloud.io/v1alpha1); the spec is read by its shape.", job.Source.Version)
		}
	}
	switch gen {
	case tfList:
		r.tfListForm(job, spec)
	case tfCaicloud:
		r.tfCaicloud(job, spec)
	default:
		r.tfMapForm(job, spec)
	}
	spec.warnUnknown()
}

// tfMapForm reads v1alpha2, v1beta1, v1beta2 and v1 (both forms).
func (r *reader) tfMapForm(job *jobs.Job, spec *mapping) {
	v1 := job.Source.Version == "kubeflow.org/v1"
	// cleanPodPolicy default: Running up to training-operator v1.5, None
	// from v1.6 (spec/kubeflow.md §1.5). v1 is read as the v1.9 API.
	clean := "Running"
	if v1 {
		clean = "None"
	}
	if f := spec.field("runPolicy"); f.val != nil && !v1 {
		r.warnf(f.key, "runPolicy in a pre-v1 TFJob", "spec.runPolicy belongs to kubeflow.org/v1; %s puts these fields directly under spec. jobshift reads it anyway.", job.Source.Version)
	}
	r.runPolicy(job, spec, clean)
	if !v1 {
		r.preV1Fields(job, spec)
	}
	if f := spec.field("successPolicy"); f.val != nil && v1 {
		job.Completion.Pos = r.pos(f.key)
		if v, ok := r.str(f.val, "spec.successPolicy"); ok {
			switch v {
			case "", "AllWorkers":
				job.Completion.SuccessPolicy = v
			default:
				r.errorf(f.val, "Invalid successPolicy", "successPolicy %q is not \"\" or \"AllWorkers\".", v)
			}
		}
	}
	if f := spec.field("enableDynamicWorker"); f.val != nil && v1 {
		job.Completion.EnableDynamicWorker, _ = r.boolean(f.val, "spec.enableDynamicWorker")
		if job.Completion.Pos.IsZero() {
			job.Completion.Pos = r.pos(f.key)
		}
	}
	r.replicaMap(job, spec, tfTypes)
	var chief, master *jobs.Role
	for _, role := range job.Roles {
		switch role.ReplicaType {
		case "chief":
			chief = role
		case "master":
			master = role
		}
	}
	if chief != nil && master != nil {
		r.errorf(r.node(master.Pos), "Chief and Master together", "A TFJob may have a Chief or a Master replica, not both (Master is the old name of Chief); the operator rejects the job. Keep one.")
	}
	if chief == nil {
		chief = master
	}
	switch {
	case len(job.Roles) == 0:
	case chief != nil && job.Completion.SuccessPolicy == "AllWorkers":
		r.warnf(r.node(job.Completion.Pos), "successPolicy has no effect", "successPolicy AllWorkers only applies to jobs without a Chief or Master; this job succeeds when its %s succeeds.", chief.ReplicaType)
	case chief == nil && job.Role("worker") == nil:
		r.warnf(r.node(job.Roles[0].Pos), "Job can never succeed", "A TFJob succeeds when its Chief/Master, or its Workers, succeed; this one has neither, so it runs until it fails or is stopped. Add a Worker or a Chief.")
	}
}

// preV1Fields: successPolicy (PR #1165) and enableDynamicWorker (PR #1149)
// arrived with kubeflow.org/v1 in v1.0.1 (pkg/apis/tensorflow/v1/types.go
// @v1.0.1-rc.0; absent from every types.go @v1.0.0-rc.0). An operator of
// an older apiVersion never saw them, so they are dropped with a warning
// (the default success rule and the dense TF_CONFIG apply).
func (r *reader) preV1Fields(job *jobs.Job, spec *mapping) {
	for _, name := range []string{"successPolicy", "enableDynamicWorker"} {
		if f := spec.field(name); f.val != nil {
			spec.ignore(name)
			r.warnf(f.key, name+" ignored", "spec.%s arrived with kubeflow.org/v1 (training-operator v1.0.1); the %s operator did not know it, so jobshift applies that operator's rules without it. Use apiVersion kubeflow.org/v1 to get it.", name, job.Source.Version)
		}
	}
}

// node turns a recorded position back into a node for diagnostics.
func (r *reader) node(p jobs.Pos) *yaml.Node {
	return &yaml.Node{Line: p.Line, Column: p.Col}
}

// defaultTFImage is v1alpha1's DefaultTFImage, used by the default PS.
const defaultTFImage = "tensorflow/tensorflow:1.3.0"

// tfListForm reads the 2017 TfJob (mlkube.io/v1beta1 with snake_case or
// camelCase keys, tensorflow.org/v1alpha1) and kubeflow.org/v1alpha1: a
// replicaSpecs list whose items carry tfReplicaType (MASTER, PS, WORKER;
// default MASTER), replicas, tfPort (default 2222) and template.
func (r *reader) tfListForm(job *jobs.Job, spec *mapping) {
	listF := spec.field("replicaSpecs")
	if listF.val == nil {
		listF = spec.field("replica_specs")
	}
	image := defaultTFImage
	if n := spec.get("tfImage"); n != nil {
		if v, ok := r.str(n, "spec.tfImage"); ok && v != "" {
			image = v
		}
	}
	spec.ignore("runtimeId", "runtimeid", "runtime_id") // the operator's name salt
	if sn := spec.field("schedulerName"); sn.val != nil {
		r.warnf(sn.key, "Pod setting ignored: schedulerName", "spec.schedulerName chooses a Kubernetes scheduler; it has no meaning on the target cluster.")
	}
	r.tensorboard(spec.field("tensorboard"))
	chiefName, chiefIndex := "MASTER", int64(0)
	if tp := spec.field("terminationPolicy"); tp.val != nil {
		t := r.mapOf(tp.val, "spec.terminationPolicy")
		c := r.mapOf(t.get("chief"), "spec.terminationPolicy.chief")
		if n := c.get("replicaName"); n != nil {
			chiefName, _ = r.str(n, "terminationPolicy.chief.replicaName")
		}
		if n := c.get("replicaIndex"); n != nil {
			chiefIndex, _ = r.integer(n, "terminationPolicy.chief.replicaIndex")
		}
		c.warnUnknown()
		t.warnUnknown()
		if chiefName != "MASTER" || chiefIndex != 0 {
			r.lossyf(tp.key, "Custom termination policy", "terminationPolicy names %s/%d as the chief whose exit ends the job; jobshift applies the Kubeflow rule (the master decides, else worker 0).", chiefName, chiefIndex)
		}
	}
	items := r.seq(listF.val, "spec.replicaSpecs")
	if len(items) == 0 {
		at := listF.key
		if at == nil {
			at = spec.node
		}
		r.errorf(at, "No replicas", "spec.replicaSpecs must list at least one replica (tfReplicaType MASTER, PS or WORKER).")
		return
	}
	chiefFound := false
	for i, it := range items {
		where := fmt.Sprintf("spec.replicaSpecs[%d]", i)
		m := r.mapOf(it, where)
		typNode := pick(m, "tfReplicaType", "tf_replica_type")
		typ := "MASTER" // v1alpha1 default
		if typNode != nil {
			typ, _ = r.str(typNode, where+".tfReplicaType")
		}
		if typ != "MASTER" && typ != "PS" && typ != "WORKER" {
			r.errorf(typNode, "Invalid tfReplicaType", "tfReplicaType %q must be one of MASTER, PS, WORKER (in capitals); the v1alpha1 operator rejects other values.", typ)
			continue
		}
		role := newRole(strings.ToLower(typ), r.pos(it))
		if typ == chiefName {
			chiefFound = true
		}
		r.instances(role, m.field("replicas"), where)
		port := jobs.Port{Label: tfFlavour.portName, Count: 1, Number: tfFlavour.defaultPort, Implicit: true}
		if pf := pickField(m, "tfPort", "tf_port"); pf.val != nil {
			if v, ok := r.integer(pf.val, where+".tfPort"); ok && v >= 1 && v <= 65535 {
				port = jobs.Port{Label: tfFlavour.portName, Count: 1, Number: int(v), Pos: r.pos(pf.val)}
			} else if ok {
				r.errorf(pf.val, "Port out of range", "%s.tfPort %d is not between 1 and 65535.", where, v)
			}
		}
		tmpl := m.field("template")
		switch {
		case tmpl.val == nil && typ == "PS":
			// v1alpha1 defaulting gave a template-less PS the operator's
			// own gRPC server script from a ConfigMap it managed.
			role.Image, role.RestartPolicy = image, "OnFailure"
			role.Command = jobs.Command{Kind: jobs.CommandArgv, Pos: r.pos(it)}
			role.Ports = []jobs.Port{port}
			r.lossyf(it, "Default PS server not available", "This PS replica has no template, so the v1alpha1 operator ran its own parameter server (grpc_tensorflow_server.py from an operator ConfigMap, image %s). jobshift cannot provide that script; give the PS a template with a command that starts a TensorFlow server.", image)
		case tmpl.val == nil:
			r.errorf(it, "Missing template", "%s (%s) has no template; the operator rejects the job. Add template.spec.containers with a container named \"tensorflow\".", where, typ)
			continue
		default:
			pr := r.podTemplate(role, tmpl.val, tfFlavour, where+".template", &port)
			role.RestartPolicy = "Always" // Kubernetes' pod default
			if pr != nil {
				if v, ok := r.restartPolicy(pr, where+".template.spec.restartPolicy", false); ok {
					role.RestartPolicy = v
				}
			} else {
				r.warnf(it, "No restartPolicy", "%s sets no template.spec.restartPolicy; the v1alpha1 operator passes the template through, so Kubernetes' default Always applies and the task is restarted even after it succeeds. Set restartPolicy: OnFailure.", where)
			}
		}
		m.warnUnknown()
		job.Roles = append(job.Roles, role)
	}
	if !chiefFound {
		r.errorf(listF.key, "No chief replica", "The v1alpha1 operator requires a replica of type %s (the terminationPolicy chief); it rejects the job (\"Missing ReplicaSpec for chief\"). Add a MASTER replica.", chiefName)
	}
}

// tensorboard handles v1alpha1's spec.tensorboard: the operator rejected an
// empty logDir ("tbReplicaSpec.LogDir must be specified"); otherwise it ran
// a TensorBoard deployment beside the job, which jobshift does not.
func (r *reader) tensorboard(f field) {
	if f.val == nil {
		return
	}
	tb := r.mapOf(f.val, "spec.tensorboard")
	tb.ignore("serviceType", "volumes", "volumeMounts")
	ld := tb.field("logDir")
	dir, _ := r.str(ld.val, "spec.tensorboard.logDir")
	tb.warnUnknown()
	if dir == "" {
		at := ld.key
		if at == nil {
			at = f.key
		}
		r.errorf(at, "Empty tensorboard.logDir", "spec.tensorboard is set but logDir is empty; the v1alpha1 operator marks such a job Failed (\"tbReplicaSpec.LogDir must be specified\"). Set logDir or remove spec.tensorboard.")
		return
	}
	r.warnf(f.key, "TensorBoard not started", "spec.tensorboard asks the v1alpha1 operator to run TensorBoard on %s beside the job; jobshift does not start it. Run tensorboard --logdir %s yourself.", dir, dir)
}

// tfCaicloud reads caicloud's kubeflow-controller TFJob: a tfReplicaSpec
// list with tfReplicaType PS / Worker. That controller passed the cluster
// to the program as --worker_hosts/--ps_hosts/--job_name/--task_index
// arguments, not as TF_CONFIG.
func (r *reader) tfCaicloud(job *jobs.Job, spec *mapping) {
	spec.ignore("runtimeId", "runtimeid")
	listF := spec.field("tfReplicaSpec")
	items := r.seq(listF.val, "spec.tfReplicaSpec")
	if len(items) == 0 {
		at := listF.key
		if at == nil {
			at = spec.node
		}
		r.errorf(at, "No replicas", "spec.tfReplicaSpec must list at least one replica (tfReplicaType PS or Worker).")
		return
	}
	r.lossyf(listF.key, "Cluster arguments not generated", "caicloud's controller appended --worker_hosts, --ps_hosts, --job_name and --task_index to every container's args; jobshift gives the tf contract (TF_CONFIG) instead, so a program that parses those flags will not find them.")
	for i, it := range items {
		where := fmt.Sprintf("spec.tfReplicaSpec[%d]", i)
		m := r.mapOf(it, where)
		typNode := m.get("tfReplicaType")
		typ, _ := r.str(typNode, where+".tfReplicaType")
		canon := map[string]string{"ps": "ps", "worker": "worker"}[strings.ToLower(typ)]
		if canon == "" {
			r.errorf(r.or(typNode, it), "Invalid tfReplicaType", "%s.tfReplicaType %q must be PS or Worker.", where, typ)
			continue
		}
		role := newRole(canon, r.pos(it))
		r.instances(role, m.field("replicas"), where)
		port := r.caicloudPort(m.get("template"))
		pr := r.podTemplate(role, m.get("template"), tfFlavour, where+".template", &port)
		role.RestartPolicy = "Always"
		if pr != nil {
			if v, ok := r.restartPolicy(pr, where+".template.spec.restartPolicy", false); ok {
				role.RestartPolicy = v
			}
		}
		m.warnUnknown()
		job.Roles = append(job.Roles, role)
	}
}

func (r *reader) or(n, alt *yaml.Node) *yaml.Node {
	if n != nil {
		return n
	}
	return alt
}

// pick returns the value of the first key present (camelCase, snake_case).
func pick(m *mapping, keys ...string) *yaml.Node { return pickField(m, keys...).val }

func pickField(m *mapping, keys ...string) field {
	for _, k := range keys {
		if f := m.field(k); f.val != nil {
			m.ignore(keys...)
			return f
		}
	}
	return field{}
}

// caicloudPort is the port caicloud's controller put into the host lists:
// the first containerPort of the tensorflow container (else container 0),
// or 2222. It is labelled tfjob-port so that the tf contract finds it.
func (r *reader) caicloudPort(tmpl *yaml.Node) jobs.Port {
	q := &reader{}
	cs := q.seq(q.mapOf(q.mapOf(tmpl, "").get("spec"), "").get("containers"), "")
	var c *yaml.Node
	for i, cn := range cs {
		if name, _ := q.str(q.mapOf(cn, "").get("name"), ""); name == tfFlavour.container || i == 0 {
			c = cn
		}
	}
	for _, pn := range q.seq(q.mapOf(c, "").get("ports"), "") {
		cp := q.mapOf(pn, "").get("containerPort")
		if n, ok := q.integer(cp, ""); ok && n >= 1 && n <= 65535 {
			return jobs.Port{Label: tfFlavour.portName, Count: 1, Number: int(n), Pos: r.pos(cp)}
		}
	}
	return jobs.Port{Label: tfFlavour.portName, Count: 1, Number: tfFlavour.defaultPort, Implicit: true}
}
