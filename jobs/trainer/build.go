package trainer

import (
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/kubeflow"
	"go.yaml.in/yaml/v3"
)

// build applies the TrainJob to its runtime as Trainer's controller does
// (pkg/runtime/core/trainingruntime.go newRuntimeInfo, the ML-policy
// plugins' EnforceMLPolicy, pkg/runtime/framework/plugins/jobset/builder.go
// Initializer and Trainer, all @v2.3.0): one role per replicated job, in
// the runtime's order.
func build(tj *trainJob, rt *runtime, opts jobs.ReadOptions) *jobs.Job {
	job := &jobs.Job{Name: tj.name, NamePos: tj.f.pos(tj.nameNode),
		Source: jobs.Source{Format: jobs.FormatTrainJob, Version: tj.api, Kind: KindTrainJob, Path: tj.f.path}}
	job.Completion = jobs.Completion{Kind: jobs.CompletionJobSet, SuccessRoles: rt.successTargets, SuccessAny: rt.successAny,
		GangTimeoutSeconds: rt.gangTimeout, Pos: rt.f.pos(rt.successNode)}
	job.Retry.Pos = rt.f.pos(rt.restartsNode)
	if rt.maxRestarts != nil {
		// JobSet failurePolicy.maxRestarts: the whole JobSet is recreated
		// after a failure, up to maxRestarts times.
		job.Retry.JobRetryCount = *rt.maxRestarts
	}
	if tj.deadline != nil {
		job.Retry.ActiveDeadlineSeconds = tj.deadline
		job.Retry.Pos = tj.f.pos(tj.deadlineAt)
	}
	if rt.gangNode != nil {
		rt.f.warnf(rt.gangNode, "Pod-group timeout is the gang timeout", "coscheduling.scheduleTimeoutSeconds (%d s) becomes the gang timeout: the attempt fails when not every task started within it.", rt.gangTimeout)
	}
	job.Extras.Trainer = &jobs.Trainer{PodsPerJob: map[string]int{}}
	b := &builder{tj: tj, rt: rt, job: job, numNodes: -1, storagePath: opts.StoragePath}
	b.readTrainer()
	for _, rj := range rt.rjobs {
		if role := b.role(rj); role != nil {
			job.Roles = append(job.Roles, role)
		}
	}
	b.overrides()
	b.policy()
	b.initializers()
	return job
}

// builder is one TrainJob being applied to its runtime.
type builder struct {
	tj  *trainJob
	rt  *runtime
	job *jobs.Job

	numNodes     int // trainer.numNodes, -1 when unset
	numNodesNode *yaml.Node
	nproc        string // trainer.numProcPerNode as written ("" = unset)
	nprocNode    *yaml.Node
	env          *jobs.Role // trainer.env, read once
	resources    *jobs.Role // trainer.resourcesPerNode, read once (nil = unset)
	resNode      *yaml.Node
	storagePath  func(string) (string, bool) // the site's storage_uri rules
}

// readTrainer reads spec.trainer's scalar fields and env.
func (b *builder) readTrainer() {
	f, t := b.tj.f, b.tj.trainer
	if n := t.get("numNodes"); n != nil {
		if v, ok := f.count(n, "trainer.numNodes", 1); ok {
			b.numNodes, b.numNodesNode = v, n
		}
	}
	if n := t.get("numProcPerNode"); n != nil {
		b.nproc, b.nprocNode = scalar(n), n
		if v, err := strconv.Atoi(b.nproc); err == nil {
			if v < 1 {
				f.errorf(n, "Invalid numProcPerNode", "trainer.numProcPerNode must be at least 1, not %d.", v)
				b.nproc = ""
			}
		} else if b.nproc != "auto" && b.nproc != "cpu" && b.nproc != "gpu" {
			// v2.0/v2.1 IntOrString: "NumProcPerNode must be equal to auto, cpu, gpu, or int value"
			f.errorf(n, "Invalid numProcPerNode", "trainer.numProcPerNode %q must be a positive integer (v2.0/v2.1 also accepted auto, cpu and gpu).", b.nproc)
			b.nproc = ""
		}
	}
	b.env = &jobs.Role{}
	if n := t.get("env"); n != nil {
		f.pod.Env(b.env, n, "spec.trainer.env", kubeflow.PodOptions{})
	}
	if e := t.field("resourcesPerNode"); e.val != nil {
		b.resources, b.resNode = &jobs.Role{}, e.val
		f.pod.Resources(b.resources, e.key, e.val, "spec.trainer.resourcesPerNode")
	}
	t.ignore("image", "command", "args")
	t.warnUnknown()
}

// role makes the role of one replicated job.
func (b *builder) role(rj *rjob) *jobs.Role {
	rt, f := b.rt, b.rt.f
	rtype := rj.ancestor
	if rtype == "" {
		rtype = rj.name
	}
	role := &jobs.Role{Name: rj.name, ReplicaType: rtype, Pos: f.pos(rj.nameNode), Instances: 1,
		Command: jobs.Command{Kind: jobs.CommandArgv, Pos: f.pos(rj.nameNode)}, DependsOn: rj.dependsOn}
	if rj.pod == nil {
		return role
	}
	f.pod.Namespace(b.tj.namespace) // the TrainJob's pods are in its namespace
	restart := f.pod.PodTemplate(role, withClaims(rj.pod, rt.claims), rj.where+".template.spec.template", kubeflow.PodOptions{Container: mainContainer(rj)})
	// batch/v1 Job pods: restartPolicy OnFailure (JobSet's default) or
	// Never; either way a failed pod is retried until the Job's
	// backoffLimit (default 6, batch/v1 JobSpec) is reached.
	role.RestartPolicy = "OnFailure"
	if restart != nil {
		if s := scalar(restart); s == "Never" || s == "OnFailure" {
			role.RestartPolicy = s
		} else {
			f.errorf(restart, "Invalid restartPolicy", "A Job's pods must have restartPolicy Never or OnFailure, not %q; Kubernetes rejects the Job.", s)
		}
	}
	limit := 6
	if rj.backoffLimit != nil {
		limit = *rj.backoffLimit
	}
	role.BackoffLimit = &limit
	count := rj.parallelism
	if rj.ancestor == ancestorTrainer && rt.policy.node != nil {
		count = rt.policy.numNodes // trainingruntime.go newRuntimeInfo
	}
	replicas := rj.replicas
	switch rj.ancestor {
	case ancestorTrainer, datasetInitializer, modelInitializer:
		replicas = 1 // builder.go Trainer / Initializer: Replicas = 1
	}
	role.Instances = replicas * count
	if replicas > 1 {
		b.job.Extras.Trainer.PodsPerJob[rj.name] = count
	}
	b.applyTrainer(rj, role)
	return role
}

// mainContainer is the container that is the task: the one named node
// (the trainer's, constants.Node) or after the initializer, else the first.
func mainContainer(rj *rjob) string {
	want := nodeName
	if rj.ancestor == datasetInitializer || rj.ancestor == modelInitializer {
		want = rj.ancestor
	}
	for _, c := range yamlSeq(child(rj.pod, "spec", "containers")) {
		if scalar(child(c, "name")) == want {
			return want
		}
	}
	return ""
}

func yamlSeq(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// applyTrainer applies spec.trainer to the trainer role (builder.go
// Trainer: image, command, args on the trainer-ancestor job's node
// container; env also on the MPI node job when runLauncherAsNode) and
// resourcesPerNode (trainingruntime.go: merged over the container's).
func (b *builder) applyTrainer(rj *rjob, role *jobs.Role) {
	f, t := b.tj.f, b.tj.trainer
	isTrainer := rj.ancestor == ancestorTrainer
	mpiNode := b.rt.policy.kind == "mpi" && b.rt.policy.launcherNode && rj.name == nodeName
	if isTrainer {
		if n := t.get("image"); n != nil {
			role.Image, _ = f.str(n, "trainer.image")
			role.ImagePos = f.pos(n)
		}
		if e := t.field("command"); e.val != nil {
			role.Command.Command = f.pod.StringList(e.val, "trainer.command")
			role.Command.Pos = f.pos(e.key)
		}
		if e := t.field("args"); e.val != nil {
			role.Command.Args = f.pod.StringList(e.val, "trainer.args")
			role.Command.Pos = f.pos(e.key)
		}
	}
	if !isTrainer && !mpiNode {
		return
	}
	upsertEnv(role, b.env.Env)
	if b.resources != nil && (isTrainer && b.rt.policy.node != nil || mpiNode) {
		mergeResources(&role.Resources, b.resources.Resources)
	}
}

// upsertEnv is apply.UpsertEnvVars: a variable already there takes the new
// value in place, a new one is appended.
func upsertEnv(role *jobs.Role, env []jobs.EnvVar) {
	for _, e := range env {
		found := false
		for i := range role.Env {
			if role.Env[i].Name == e.Name {
				role.Env[i], found = e, true
			}
		}
		if !found {
			role.Env = append(role.Env, e)
		}
	}
}

// mergeResources is MergeResourceRequirements: every resource the TrainJob
// names replaces the runtime's.
func mergeResources(dst *jobs.Resources, src jobs.Resources) {
	if src.CPUMilli > 0 {
		dst.CPUMilli = src.CPUMilli
	}
	if src.MemoryMiB > 0 {
		dst.MemoryMiB = src.MemoryMiB
	}
	if src.GPU > 0 {
		dst.GPU, dst.GPUType = src.GPU, src.GPUType
	}
	for k, v := range src.Extended {
		if dst.Extended == nil {
			dst.Extended = map[string]int64{}
		}
		dst.Extended[k] = v
	}
	if !src.Pos.IsZero() {
		dst.Pos = src.Pos
	}
}

// trainerRole is the role of the trainer-ancestor replicated job (nil when
// the runtime has none).
func (b *builder) trainerRole() *jobs.Role {
	for k, rj := range b.rt.rjobs {
		if rj.ancestor == ancestorTrainer && k < len(b.job.Roles) {
			return b.job.Role(rj.name)
		}
	}
	return nil
}

// reserved refuses user variables an ML policy owns, as its plugin's
// Validate does: "must not have reserved envs" (torch.go, mpi.go) or
// "is reserved for the XGBoost runtime" (xgboost.go), @v2.3.0.
func (b *builder) reserved(names ...string) {
	for _, e := range b.env.Env {
		for _, n := range names {
			if e.Name == n {
				b.tj.f.c.Errorf(e.Pos, "Reserved variable", "spec.trainer.env sets %s, which the %s runtime sets itself; Trainer's admission refuses the TrainJob (\"must not have reserved envs\"). Remove it.", e.Name, b.rt.policy.kind)
			}
		}
	}
}

func isTorchtune(cmd []string) bool {
	return len(cmd) == 2 && cmd[0] == "tune" && cmd[1] == "run"
}

func lower(s string) string { return strings.ToLower(s) }

// withClaims is the pod template with a persistentVolumeClaim volume for
// each JobSet volumeClaimPolicies template (JobSet adds them to every pod
// that mounts one), so mounts of them read as PVC mounts. The user's
// nodes are not changed: the spec mapping is copied.
func withClaims(pod *yaml.Node, claims []string) *yaml.Node {
	spec := child(pod, "spec")
	if len(claims) == 0 || spec == nil || spec.Kind != yaml.MappingNode {
		return pod
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	vols := &yaml.Node{Kind: yaml.SequenceNode, Line: spec.Line, Column: spec.Column}
	if old := child(spec, "volumes"); old != nil && old.Kind == yaml.SequenceNode {
		vols.Content = append(vols.Content, old.Content...)
	}
	for _, c := range claims {
		pvc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("claimName"), str(c)}}
		vols.Content = append(vols.Content, &yaml.Node{Kind: yaml.MappingNode, Line: spec.Line, Column: spec.Column,
			Content: []*yaml.Node{str("name"), str(c), str("persistentVolumeClaim"), pvc}})
	}
	ns := &yaml.Node{Kind: yaml.MappingNode, Line: spec.Line, Column: spec.Column}
	for i := 0; i+1 < len(spec.Content); i += 2 {
		if spec.Content[i].Value != "volumes" {
			ns.Content = append(ns.Content, spec.Content[i], spec.Content[i+1])
		}
	}
	ns.Content = append(ns.Content, str("volumes"), vols)
	np := &yaml.Node{Kind: yaml.MappingNode, Line: pod.Line, Column: pod.Column}
	for i := 0; i+1 < len(pod.Content); i += 2 {
		if pod.Content[i].Value != "spec" {
			np.Content = append(np.Content, pod.Content[i], pod.Content[i+1])
		}
	}
	np.Content = append(np.Content, str("spec"), ns)
	return np
}
