package trainer

import (
	"fmt"

	"github.com/jobshift/jobshift/jobs"
	"go.yaml.in/yaml/v3"
)

// Label names and replicated-job names Trainer gives meaning to
// (pkg/constants/constants.go @v2.3.0).
const (
	ancestorLabel      = "trainer.kubeflow.org/trainjob-ancestor-step"
	ancestorTrainer    = "trainer"
	datasetInitializer = "dataset-initializer"
	modelInitializer   = "model-initializer"
	nodeName           = "node"     // constants.Node: the trainer container and replicated job
	launcherName       = "launcher" // constants.Launcher
	trainerPort        = 29500      // constants.ContainerTrainerPort
)

// runtime is a TrainingRuntime or ClusterTrainingRuntime as read.
type runtime struct {
	f        *file
	kind     string // TrainingRuntime or ClusterTrainingRuntime
	name     string
	nameNode *yaml.Node
	source   string // where it came from, for messages
	policy   mlPolicy
	rjobs    []*rjob
	// JobSet successPolicy (jobset api/jobset/v1alpha2/jobset_types.go):
	// operator All (default) or Any over targetReplicatedJobs (empty = all).
	successAny     bool
	successTargets []string
	successNode    *yaml.Node
	maxRestarts    *int
	restartsNode   *yaml.Node
	subdomain      string
	gangTimeout    int // coscheduling scheduleTimeoutSeconds (0 = none)
	gangNode       *yaml.Node
	// claims are JobSet volumeClaimPolicies templates: a PersistentVolumeClaim
	// per name that every pod may mount as a volume of that name.
	claims []string
}

// mlPolicy is spec.mlPolicy (trainingruntime_types.go @v2.3.0).
type mlPolicy struct {
	kind         string // torch, mpi, jax, xgboost, flux or "" (plain)
	node         *yaml.Node
	numNodes     int // default 1
	numNodesNode *yaml.Node
	mpi          jobs.MPI
	mpiProcNode  *yaml.Node
	torchProc    *yaml.Node
	launcherNode bool // mpi.runLauncherAsNode
	envTargets   []envTarget
}

// envTarget is torch.envInjection.targets[] (v2.3.0): more containers that
// get the PET_* variables.
type envTarget struct {
	job        string
	containers []string
	node       *yaml.Node
}

// rjob is one JobSet replicated job.
type rjob struct {
	name         string
	node         *yaml.Node
	nameNode     *yaml.Node
	ancestor     string
	replicas     int
	parallelism  int
	backoffLimit *int
	dependsOn    []jobs.Dependency
	pod          *yaml.Node // the Job's pod template
	where        string
}

// readRuntime reads a runtime document (the mapping obj).
func (f *file) readRuntime(obj *yaml.Node, kind, source string) *runtime {
	rt := &runtime{f: f, kind: kind, source: source}
	m := f.mapOf(obj, kind)
	m.ignore("apiVersion", "kind", "status")
	md := f.mapOf(m.get("metadata"), "metadata")
	rt.nameNode = md.get("name")
	rt.name, _ = f.str(rt.nameNode, "metadata.name")
	md.ignore("namespace", "labels", "annotations", "uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "finalizers")
	md.warnUnknown()
	if rt.name == "" {
		f.errorf(obj, "Missing runtime name", "The %s has no metadata.name; a TrainJob names its runtime by it.", kind)
	}
	spec := f.mapOf(m.get("spec"), "spec")
	rt.readPolicy(spec.field("mlPolicy"))
	rt.readPodGroup(spec.field("podGroupPolicy"))
	tmpl := f.mapOf(spec.get("template"), "spec.template")
	tmpl.ignore("metadata")
	rt.readJobSet(f.mapOf(tmpl.get("spec"), "spec.template.spec"), spec.field("template"))
	tmpl.warnUnknown()
	spec.warnUnknown()
	m.warnUnknown()
	return rt
}

// readPolicy reads mlPolicy: exactly one source may be set (the
// TrainingRuntime webhook, pkg/webhooks/trainingruntime_webhook.go).
func (rt *runtime) readPolicy(fl kv) {
	f := rt.f
	p := &rt.policy
	p.numNodes, p.node = 1, fl.key
	m := f.mapOf(fl.val, "spec.mlPolicy")
	if n := m.get("numNodes"); n != nil {
		if v, ok := f.count(n, "mlPolicy.numNodes", 1); ok {
			p.numNodes, p.numNodesNode = v, n
		}
	}
	var set []string
	for _, k := range []string{"torch", "mpi", "jax", "xgboost", "flux"} {
		e := m.field(k)
		if e.key == nil {
			continue
		}
		set = append(set, k)
		if p.kind != "" {
			f.errorf(e.key, "More than one ML policy", "mlPolicy sets %s and %s; Trainer accepts only one ML policy source per runtime.", p.kind, k)
			continue
		}
		p.kind, p.node = k, e.key
		switch k {
		case "torch":
			rt.readTorch(e.val)
		case "mpi":
			rt.readMPI(e.val)
		case "flux":
			f.errorf(e.key, "Flux runtime not supported", "The flux ML policy installs the Flux Framework in an init container and runs the job under a Flux broker; jobshift cannot run it. Use a torch, mpi, jax, xgboost or plain runtime.")
		default:
			f.mapOf(e.val, "mlPolicy."+k).warnUnknown()
		}
	}
	m.warnUnknown()
}

func (rt *runtime) readTorch(n *yaml.Node) {
	f := rt.f
	m := f.mapOf(n, "mlPolicy.torch")
	ei := f.mapOf(m.get("envInjection"), "mlPolicy.torch.envInjection")
	for i, t := range f.seq(ei.get("targets"), "envInjection.targets") {
		where := fmt.Sprintf("envInjection.targets[%d]", i)
		tm := f.mapOf(t, where)
		et := envTarget{node: t}
		et.job, _ = f.str(tm.get("jobName"), where+".jobName")
		et.containers = f.pod.StringList(tm.get("containerNames"), where+".containerNames")
		tm.warnUnknown()
		rt.policy.envTargets = append(rt.policy.envTargets, et)
	}
	ei.warnUnknown()
	// v2.0/v2.1 TorchMLPolicySource.numProcPerNode (IntOrString, default
	// auto); the TrainJob's trainer.numProcPerNode wins over it.
	rt.policy.torchProc = m.get("numProcPerNode")
	m.warnUnknown()
}

// readMPI reads mlPolicy.mpi with its kubebuilder defaults
// (trainingruntime_types.go @v2.3.0: numProcPerNode 1, mpiImplementation
// OpenMPI, sshAuthMountPath /root/.ssh, runLauncherAsNode false).
func (rt *runtime) readMPI(n *yaml.Node) {
	f := rt.f
	m := f.mapOf(n, "mlPolicy.mpi")
	p := &rt.policy
	p.mpi = jobs.MPI{SlotsPerWorker: 1, Implementation: "OpenMPI", SSHAuthMountPath: "/root/.ssh", RshAgent: "ssh", Pos: f.pos(n)}
	if v := m.get("numProcPerNode"); v != nil {
		if c, ok := f.count(v, "mpi.numProcPerNode", 1); ok {
			p.mpi.SlotsPerWorker, p.mpiProcNode = c, v
		}
	}
	if v := m.get("mpiImplementation"); v != nil {
		if s, ok := f.str(v, "mpi.mpiImplementation"); ok && s != "" && s != "OpenMPI" {
			f.errorf(v, "Unsupported MPI implementation", "mpiImplementation %q: Trainer's MPI plugin supports only OpenMPI (the CRD's enum is OpenMPI or empty).", s)
		}
	}
	if v := m.get("sshAuthMountPath"); v != nil {
		if s, ok := f.str(v, "mpi.sshAuthMountPath"); ok && s != "" {
			p.mpi.SSHAuthMountPath = s
		}
	}
	if v := m.get("runLauncherAsNode"); v != nil {
		p.launcherNode, _ = f.boolean(v, "mpi.runLauncherAsNode")
		p.mpi.RunLauncherAsWorker = p.launcherNode
	}
	m.warnUnknown()
}

// readPodGroup reads podGroupPolicy: coscheduling's scheduleTimeoutSeconds
// (default 60, pkg/apis/trainer/v1alpha1/trainingruntime_types.go @v2.3.0;
// the coscheduling plugin copies it to the PodGroup) becomes the gang
// timeout; Volcano's fields only configure Volcano.
func (rt *runtime) readPodGroup(fl kv) {
	f := rt.f
	if fl.key == nil {
		return
	}
	m := f.mapOf(fl.val, "spec.podGroupPolicy")
	if e := m.field("coscheduling"); e.key != nil {
		rt.gangTimeout, rt.gangNode = 60, e.key
		cm := f.mapOf(e.val, "podGroupPolicy.coscheduling")
		if v := cm.get("scheduleTimeoutSeconds"); v != nil {
			if s, ok := f.integer(v, "coscheduling.scheduleTimeoutSeconds"); ok && s > 0 {
				rt.gangTimeout, rt.gangNode = int(s), v
			}
		}
		cm.warnUnknown()
	}
	if e := m.field("volcano"); e.key != nil {
		f.warnf(e.key, "Volcano pod-group policy ignored", "podGroupPolicy.volcano configures a Volcano PodGroup (network topology, queue); jobshift starts all tasks of the job together anyway and has no Volcano scheduler.")
	}
	m.warnUnknown()
}
