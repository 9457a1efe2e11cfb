package jobs

// Format names the input format a job was read from.
type Format string

const (
	FormatPAIv1      Format = "pai-v1"     // OpenPAI v1 job config JSON
	FormatPAIv2      Format = "pai-v2"     // OpenPAI protocol v2 YAML
	FormatTFJob      Format = "tfjob"      // Kubeflow TFJob, every API generation
	FormatPyTorchJob Format = "pytorchjob" // Kubeflow PyTorchJob
	FormatMPIJob     Format = "mpijob"     // Kubeflow MPIJob v1alpha1 … v2beta1
	FormatXGBoostJob Format = "xgboostjob" // Kubeflow XGBoostJob (training-operator v1)
	FormatPaddleJob  Format = "paddlejob"  // Kubeflow PaddleJob (training-operator v1)
	FormatJAXJob     Format = "jaxjob"     // Kubeflow JAXJob (training-operator v1)
	FormatMXJob      Format = "mxjob"      // Kubeflow MXJob (training-operator ≤ v1.8.1)
	FormatTrainJob   Format = "trainjob"   // Kubeflow Trainer v2 TrainJob with its runtime
	FormatVolcano    Format = "volcano"    // Volcano batch.volcano.sh/v1alpha1 Job
)

// Contract names. A contract is the set of environment variables one source
// platform gave each task (see translate/contract).
const (
	ContractPAI     = "pai"      // OpenPAI k8s era (spec/pai.md §3.1)
	ContractPAIYarn = "pai-yarn" // extra v0.11–v0.14 names for v1 JSON jobs (§3.2)
	ContractLeinao  = "leinao"   // LeinaoPAI dialect (§3.4)
	ContractTF      = "tf"       // Kubeflow TFJob v1.9 TF_CONFIG
	ContractUAI     = "uai"      // UCloud UAI Train TF_CONFIG
	ContractTorch   = "torch"    // PyTorchJob v1.9 MASTER_*/RANK/WORLD_SIZE/PET_*
	ContractMPI     = "mpi"      // MPIJob: hostfile, OMPI_MCA_*/I_MPI_*/HYDRA_*, K_MPI_JOB_ROLE
	ContractXGBoost = "xgboost"  // XGBoostJob v1.9 MASTER_*/WORLD_SIZE/RANK/WORKER_*
	ContractPaddle  = "paddle"   // PaddleJob v1.9 PADDLE_MASTER/PADDLE_NNODES/PADDLE_JOB_ID ...
	ContractJAX     = "jax"      // JAXJob v1.9 COORDINATOR_*/NUM_PROCESSES/PROCESS_ID
	ContractMXNet   = "mxnet"    // MXJob v1.8.1 MX_CONFIG, DMLC_*
	// Kubeflow Trainer v2 ML policies (pkg/runtime/framework/plugins/*).
	ContractTrainerTorch   = "trainer-torch"   // PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_*
	ContractTrainerMPI     = "trainer-mpi"     // OMPI_MCA_* of the MPI plugin's launcher
	ContractTrainerJAX     = "trainer-jax"     // JAX_NUM_PROCESSES, JAX_PROCESS_ID, JAX_COORDINATOR_ADDRESS
	ContractTrainerXGBoost = "trainer-xgboost" // DMLC_TRACKER_URI/PORT, DMLC_TASK_ID, DMLC_NUM_WORKER
	ContractVolcano        = "volcano"         // Volcano job plugins: env, svc, pytorch, tensorflow, mpi (jobs/volcano.go)
)

// Job is the neutral description of one distributed job.
type Job struct {
	Name    string `json:"name"`
	NamePos Pos    `json:"namePos"`
	Source  Source `json:"source"`

	// Roles in source order (PAI: taskRoles order; Kubeflow: the operator's
	// replica-type order is NOT used, the file's order is). Contracts that
	// list roles use this order.
	Roles []*Role `json:"roles"`

	Completion Completion `json:"completion"`
	Retry      Retry      `json:"retry"`

	// Parameters are PAI v2 `parameters` after -var overrides (already
	// substituted into commands by the reader; kept for explain).
	Parameters map[string]any `json:"parameters,omitempty"`
	// Secrets are PAI v2 `secrets`. They never appear in generated artifacts
	// in plain text and are not serialised by explain -format json.
	Secrets map[string]any `json:"-"`
	// SecretNames lists the top-level secret keys (what explain may show).
	SecretNames []string `json:"secretNames,omitempty"`

	// Contracts the job expects by default (its source format's).
	Contracts []string `json:"contracts"`

	// VirtualCluster is PAI's virtualCluster / defaults.virtualCluster.
	VirtualCluster string `json:"virtualCluster,omitempty"`
	// Priority is a source priority hint (PAI hived jobPriorityClass mapped
	// to its number, Kubeflow schedulingPolicy.priorityClass is kept as text
	// in PriorityClass).
	Priority      *int   `json:"priority,omitempty"`
	PriorityClass string `json:"priorityClass,omitempty"`

	// PAI v1 paths, kept because the pai-yarn contract exports them.
	DataDir   string `json:"dataDir,omitempty"`
	OutputDir string `json:"outputDir,omitempty"`
	CodeDir   string `json:"codeDir,omitempty"`

	// Extras the readers recognised (PAI v2 extras; unknown ones are warned).
	Extras Extras `json:"extras,omitempty"`

	// Lossy is ReadOptions.Lossy as read (jobs/load): checks made later,
	// where the site config is known, warn instead of refusing.
	Lossy bool `json:"-"`
}

// Source records where a job came from.
type Source struct {
	Format  Format `json:"format"`
	Version string `json:"version,omitempty"` // apiVersion, protocolVersion, PAI era
	Kind    string `json:"kind,omitempty"`    // Kubernetes kind as written (TfJob, TFJob, ...)
	Path    string `json:"path"`              // file path, or "-" for stdin
	Dialect string `json:"dialect,omitempty"` // "leinao" for the LeinaoPAI dialect
}

// Role is one task role (PAI) or replica type (Kubeflow).
type Role struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos"`

	// ReplicaType is the normalised Kubeflow replica type (chief, master,
	// ps, worker, evaluator); empty for PAI roles.
	ReplicaType string `json:"replicaType,omitempty"`

	Instances    int `json:"instances"`
	InstancesPos Pos `json:"instancesPos"`

	Image     string     `json:"image,omitempty"`
	ImagePos  Pos        `json:"imagePos"`
	ImageAuth *ImageAuth `json:"imageAuth,omitempty"`

	Command    Command   `json:"command"`
	WorkingDir string    `json:"workingDir,omitempty"`
	Env        []EnvVar  `json:"env,omitempty"`
	Resources  Resources `json:"resources"`
	Ports      []Port    `json:"ports,omitempty"`
	Volumes    []Volume  `json:"volumes,omitempty"`

	// MinFailed / MinSucceeded are PAI's per-role completion counters after
	// the era's defaults were applied (spec/pai.md §4.1): nil = null in a v1
	// JSON file (rule disabled, YARN exports an empty string), -1 = disabled
	// (k8s), n ≥ 1 = the threshold. Kubeflow roles leave both nil.
	MinFailed       *int `json:"minFailed"`
	MinSucceeded    *int `json:"minSucceeded"`
	MinFailedPos    Pos  `json:"minFailedPos"`
	MinSucceededPos Pos  `json:"minSucceededPos"`

	// TaskRetryCount is PAI v2 taskRetryCount (only effective when
	// Job.Retry.GangAllocation is false).
	TaskRetryCount int `json:"taskRetryCount,omitempty"`
	// RestartPolicy is the Kubeflow replica restartPolicy (Never, OnFailure,
	// Always, ExitCode); empty for PAI roles.
	RestartPolicy string `json:"restartPolicy,omitempty"`
	// BackoffLimit is a role's own retry limit (a JobSet replicated Job's
	// backoffLimit: failed pods are replaced up to it); nil = the job's.
	BackoffLimit *int `json:"backoffLimit,omitempty"`
	// NprocPerNode is PyTorchJob nprocPerNode (0 = not set, means 1).
	NprocPerNode int `json:"nprocPerNode,omitempty"`
	// NprocPerNodeSpec is PyTorchJob spec.nprocPerNode as written ("auto",
	// "cpu", "gpu" or an integer); "" = not set (the operator's v1.7+
	// default is "auto" unless elasticPolicy.nProcPerNode is set).
	NprocPerNodeSpec string `json:"nprocPerNodeSpec,omitempty"`

	// Prerequisites names PAI v2 prerequisites this role uses (runtime
	// plugins etc.), for explain and warnings.
	Prerequisites []string `json:"prerequisites,omitempty"`

	// DependsOn lists the roles that must reach a state before this role's
	// tasks start: Volcano task dependsOn, JobSet/Trainer replicated-job
	// dependsOn (initializers before the trainer, launcher after the nodes
	// are ready). One step order for every format; drivers start a role
	// only when every dependency holds.
	DependsOn []Dependency `json:"dependsOn,omitempty"`

	// Files are files the platform put at fixed paths in every task of the
	// role (Volcano's /etc/volcano/<task>.host, Trainer's MPI hostfile,
	// ConfigMap and Secret volumes), with content known from the job alone.
	// Drivers place them at Path: mounts for containers, a private mount
	// namespace for plain processes, a located refusal where neither exists.
	Files []File `json:"files,omitempty"`

	// Init are the role's init containers (Kubernetes initContainers):
	// run in every task before Command, in order, each to success; a
	// failing one fails the task (its exit code) by the role's restart
	// policy, as the kubelet did.
	Init []InitStep `json:"init,omitempty"`
}

// InitStep is one init container (Role.Init): its own image, command,
// environment and volume mounts; the task's working directory otherwise.
type InitStep struct {
	Name       string   `json:"name"`
	Image      string   `json:"image,omitempty"`
	ImagePos   Pos      `json:"imagePos"`
	Command    Command  `json:"command"`
	WorkingDir string   `json:"workingDir,omitempty"`
	Env        []EnvVar `json:"env,omitempty"`
	Volumes    []Volume `json:"volumes,omitempty"`
	Pos        Pos      `json:"pos"`
}

// File is one platform file at a fixed path (Role.Files).
type File struct {
	Path    string `json:"path"`
	Content string `json:"-"` // may be a secret: never serialised
	Mode    uint32 `json:"mode"`
	// Secret marks content that must stay out of artifacts, logs and
	// diagnostics (Secret volumes): drivers deliver it as they deliver
	// PAI secrets.
	Secret bool `json:"secret,omitempty"`
	Pos    Pos  `json:"pos"`
}

// DependencyStatus is the state a dependency must reach.
type DependencyStatus string

const (
	// DependsReady: every task of the role has started (JobSet "Ready",
	// Volcano's dependsOn without iteration semantics).
	DependsReady DependencyStatus = "Ready"
	// DependsComplete: every task of the role has succeeded (JobSet
	// "Complete": an initializer that must finish before the trainer).
	DependsComplete DependencyStatus = "Complete"
)

// Dependency is one entry of Role.DependsOn.
type Dependency struct {
	Role   string           `json:"role"`
	Status DependencyStatus `json:"status"`
	Pos    Pos              `json:"pos"`
}

// CommandKind says how the source platform ran the command.
type CommandKind string

const (
	// CommandEval: PAI v1 — one bash line run as `eval <command> || exit $?`.
	CommandEval CommandKind = "eval"
	// CommandBashScript: PAI v2 — the rendered commands, one per line, in a
	// bash script under `set -o errexit -o nounset -o pipefail`.
	CommandBashScript CommandKind = "bash-script"
	// CommandArgv: Kubeflow — container command (replaces ENTRYPOINT) and
	// args (replace CMD), no shell involved.
	CommandArgv CommandKind = "argv"
)

// Command is what a task runs.
type Command struct {
	Kind CommandKind `json:"kind"`
	// Script is the eval line (CommandEval) or the script body
	// (CommandBashScript), exactly as the platform would have run it.
	// For CommandBashScript it is the rest-server's rendered entrypoint
	// only: the `set -o errexit -o nounset -o pipefail` header is not part
	// of it; whatever runs the script adds it. It may still hold
	// `<% $secrets.x %>` references, which the runtime resolves.
	Script string `json:"script,omitempty"`
	// Command and Args are the Kubeflow container command and args.
	// An empty Command means "the image's ENTRYPOINT".
	Command []string `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Pos     Pos      `json:"pos"`
}

// EnvVar is one environment variable the user set.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Pos   Pos    `json:"pos"`
	// Secret marks a value from a Kubernetes Secret (secretKeyRef,
	// envFrom secretRef): it never appears in an artifact, a log or a
	// diagnostic, and is not serialised (MarshalJSON in secret.go).
	Secret bool `json:"secret,omitempty"`
	// FieldPath: the value is the pod's own field, a Kubernetes
	// downward-API fieldRef (metadata.name, status.podIP, ...), which
	// differs from task to task: Value is empty and the environment
	// contract gives every task its value (translate/contract fieldref.go).
	FieldPath string `json:"fieldPath,omitempty"`
}

// Downward-API field paths a task's EnvVar.FieldPath may hold.
const (
	FieldPodName  = "metadata.name"
	FieldPodIP    = "status.podIP"
	FieldPodIPs   = "status.podIPs"
	FieldNodeName = "spec.nodeName"
	FieldHostIP   = "status.hostIP"
	FieldHostIPs  = "status.hostIPs"
)

// Resources are per-instance resources.
type Resources struct {
	CPUMilli  int64 `json:"cpuMilli"`  // CPU in millicores (PAI cpuNumber 4 → 4000)
	MemoryMiB int64 `json:"memoryMiB"` // memory in MiB
	ShmMiB    int64 `json:"shmMiB"`    // /dev/shm size in MiB (PAI shmMB)
	// ShmSet reports whether the user wrote shmMB (PAI_RESOURCE shows 0
	// when absent although the container gets 512).
	ShmSet  bool   `json:"shmSet,omitempty"`
	GPU     int    `json:"gpu"`
	GPUType string `json:"gpuType,omitempty"` // PAI gpuType, hived skuType, node selector hint
	// Extended holds other extended resources (rdma/hca, hugepages ...).
	Extended map[string]int64 `json:"extended,omitempty"`
	Pos      Pos              `json:"pos"`
}

// Port is a labelled group of ports every instance of a role gets.
type Port struct {
	Label string `json:"label"`
	Count int    `json:"count"`
	// BeginAt is PAI v1 beginAt: 0 = the scheduler picks; >0 = the fixed
	// range [BeginAt, BeginAt+Count-1].
	BeginAt int `json:"beginAt,omitempty"`
	// Implicit marks ports the platform added (PAI http/ssh, Kubeflow's
	// default tfjob-port 2222 / pytorchjob-port 23456).
	Implicit bool `json:"implicit,omitempty"`
	// Number is the port number the source declared (Kubeflow containerPort,
	// or the operator default 2222 / 23456). On Kubernetes every pod had its
	// own IP, so the number was fixed; drivers that share hosts may allocate
	// another one and the contract then carries the real one. 0 = none.
	Number int `json:"number,omitempty"`
	Pos    Pos `json:"pos"`
}

// Volume is a mount the user asked for. Readers record it; drivers decide
// whether they can provide it (hostPath can, PVC cannot).
type Volume struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"` // hostPath, emptyDir, pvc, nfs, storage, ...
	Source    string `json:"source,omitempty"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	// SubPath is the mount's subPath (already joined into a hostPath or
	// nfs Source; kept for the kinds a site rule maps).
	SubPath string `json:"subPath,omitempty"`
	// Used: the command, working directory or env names a path under
	// MountPath, so a target that cannot provide it changes what the job
	// does (translate.Build refuses it unless -lossy).
	Used bool `json:"used,omitempty"`
	// SizeMiB is an emptyDir's sizeLimit, rounded up (0 = none); Source
	// is its medium ("Memory": a tmpfs of that size).
	SizeMiB int64 `json:"sizeMiB,omitempty"`
	Pos     Pos   `json:"pos"`
}

// ImageAuth is registry credentials (PAI v1 authFile path or v2 auth).
// Secret-bearing values may still contain unresolved <% $secrets.x %>.
type ImageAuth struct {
	Registry string `json:"registry,omitempty"`
	Username string `json:"username,omitempty"`
	Password string `json:"-"`
	AuthFile string `json:"authFile,omitempty"`
}

// CompletionKind selects the rule family the completion engine applies.
type CompletionKind string

const (
	CompletionPAI     CompletionKind = "pai"     // per-role minFailed/minSucceeded
	CompletionTF      CompletionKind = "tf"      // chief/master, worker-0, AllWorkers
	CompletionPyTorch CompletionKind = "pytorch" // master decides
	CompletionMPI     CompletionKind = "mpi"     // the launcher decides
	CompletionJobSet  CompletionKind = "jobset"  // JobSet successPolicy over replicated jobs (TrainJob)
	CompletionVolcano CompletionKind = "volcano" // Volcano policies, minAvailable, minSuccess (Extras.Volcano)
)

// Completion is the job-level part of the completion policy; PAI's per-role
// counters live on Role.
type Completion struct {
	Kind CompletionKind `json:"kind"`
	// SuccessPolicy is TFJob successPolicy ("" = default, "AllWorkers").
	SuccessPolicy string `json:"successPolicy,omitempty"`
	// EnableDynamicWorker is TFJob enableDynamicWorker.
	EnableDynamicWorker bool `json:"enableDynamicWorker,omitempty"`
	// Decider is the replica type whose success ends the job under the
	// pytorch rule family ("" = master): "scheduler" for an MXJob.
	Decider string `json:"decider,omitempty"`
	// SuccessRoles are a JobSet successPolicy's targetReplicatedJobs
	// (empty = every role) and SuccessAny its operator Any (else All).
	SuccessRoles []string `json:"successRoles,omitempty"`
	SuccessAny   bool     `json:"successAny,omitempty"`
	// GangTimeoutSeconds is a pod-group schedule timeout (Trainer's
	// coscheduling scheduleTimeoutSeconds): the attempt fails when not
	// every task started within it. 0 = the site's setting.
	GangTimeoutSeconds int `json:"gangTimeoutSeconds,omitempty"`
	Pos                Pos `json:"pos"`
}

// Retry is the retry policy.
type Retry struct {
	// PAI: jobRetryCount (v2) / retryCount (v1): -2 always retry (not
	// fancy), -1 retry on any failure, n ≥ 0 retry up to n times.
	JobRetryCount int `json:"jobRetryCount"`
	// Fancy is PAI's fancyRetryPolicy (exit-code classes), true unless -2.
	Fancy bool `json:"fancy,omitempty"`
	// GangAllocation is PAI extras.gangAllocation (default true).
	GangAllocation bool `json:"gangAllocation"`

	// Kubeflow runPolicy.
	BackoffLimit          *int   `json:"backoffLimit,omitempty"`
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	CleanPodPolicy        string `json:"cleanPodPolicy,omitempty"`
	TTLSecondsAfterFinish *int   `json:"ttlSecondsAfterFinished,omitempty"`
	Pos                   Pos    `json:"pos"`
}

// Extras are recognised PAI v2 extras and similar platform hints.
type Extras struct {
	RuntimePlugins []RuntimePlugin `json:"runtimePlugins,omitempty"`
	// HivedSKU maps role → hived skuType.
	HivedSKU map[string]string `json:"hivedSku,omitempty"`
	// ElasticPolicy is PyTorchJob elasticPolicy, kept verbatim.
	ElasticPolicy map[string]any `json:"elasticPolicy,omitempty"`
	// MPI is what an MPIJob's operator derived from its spec (also a
	// TrainJob's mpi ML policy).
	MPI *MPI `json:"mpi,omitempty"`
	// MXNet is what an MXJob's operator read besides the replica specs.
	MXNet *MXNet `json:"mxnet,omitempty"`
	// Trainer is what a TrainJob's runtime and ML policy decided.
	Trainer *Trainer `json:"trainer,omitempty"`
	// Volcano is a Volcano Job's lifecycle and plugins (jobs/volcano.go).
	Volcano *Volcano `json:"volcano,omitempty"`
}

// MXNet is the MXJob part its operator put into MX_CONFIG (training-operator
// v1.8.1 pkg/controller.v1/mxnet/mxnet.go genLabelsSpec).
type MXNet struct {
	// JobMode is MXTrain or MXTune.
	JobMode string `json:"jobMode"`
	// TunerKeys are each role's template annotation tuner-server-key ("" when
	// absent), by role name: MX_CONFIG's labels.
	TunerKeys map[string]string `json:"tunerKeys,omitempty"`
}

// Trainer is the part of a Kubeflow Trainer v2 TrainJob its ML-policy
// plugins turn into the trainer's environment (jobs/trainer).
type Trainer struct {
	Runtime      string `json:"runtime"`      // runtime kind/name and where it came from
	Policy       string `json:"policy"`       // torch, mpi, jax, xgboost or "" (plain)
	TrainerRole  string `json:"trainerRole"`  // the role whose task 0 is the master (node)
	NumNodes     int    `json:"numNodes"`     // the trainer's node count
	NprocPerNode string `json:"nprocPerNode"` // PET_NPROC_PER_NODE ("auto" or a count)
	GPUPerNode   int    `json:"gpuPerNode"`   // GPUs per node (xgboost's worker multiplier)
	Subdomain    string `json:"subdomain"`    // the JobSet headless service (default: the job name)
	// EnvRoles are the roles that get the ML policy's variables: the
	// trainer, and torch envInjection targets.
	EnvRoles []string `json:"envRoles"`
	// PodsPerJob is each role's pods per replicated Job (the Job's
	// parallelism), when it has more than one Job (replicas > 1).
	PodsPerJob map[string]int `json:"podsPerJob,omitempty"`
	// Torchtune: the trainer's command is `tune run` (the rendezvous
	// endpoint travels as an argument instead of PET_MASTER_*).
	Torchtune bool `json:"torchtune,omitempty"`
}

// MPI is the MPIJob part the operator turned into the launcher's hostfile
// and environment (spec/kubeflow.md §5; kubeflow/mpi-operator controllers).
type MPI struct {
	// SlotsPerWorker is the slots= (OpenMPI) or :N (Intel, MPICH) of every
	// hostfile line, after the generation's default.
	SlotsPerWorker int `json:"slotsPerWorker"`
	// Implementation is OpenMPI, Intel or MPICH (v2beta1; earlier
	// generations only knew OpenMPI).
	Implementation string `json:"implementation"`
	// RunLauncherAsWorker lists the launcher first in the hostfile (v2beta1).
	RunLauncherAsWorker bool `json:"runLauncherAsWorker,omitempty"`
	// SSHAuthMountPath is where v2beta1 mounts the job's ssh keys.
	SSHAuthMountPath string `json:"sshAuthMountPath,omitempty"`
	// RshAgent is how the launcher reached workers: "ssh" (v2beta1) or
	// "kubexec" (v1alpha1 … v1: /etc/mpi/kubexec.sh, kubectl exec).
	RshAgent string `json:"rshAgent"`
	// HostSuffix is appended to worker pod names in the hostfile: ".<job>.<ns>.svc"
	// for v2beta1, "" before (bare pod names).
	HostSuffix string `json:"hostSuffix,omitempty"`
	Pos        Pos    `json:"pos"`
}

// RuntimePlugin is one PAI runtime plugin (ssh, tensorboard, cmd, git, ...).
type RuntimePlugin struct {
	Plugin        string         `json:"plugin"`
	Parameters    map[string]any `json:"parameters,omitempty"`
	FailurePolicy string         `json:"failurePolicy,omitempty"`
	TaskRoles     []string       `json:"taskRoles,omitempty"`
	Pos           Pos            `json:"pos"`
}

// Role returns the role called name, or nil.
func (j *Job) Role(name string) *Role {
	for _, r := range j.Roles {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// TaskCount is the number of tasks over all roles.
func (j *Job) TaskCount() int {
	n := 0
	for _, r := range j.Roles {
		n += r.Instances
	}
	return n
}

// PortCount is the number of ports one instance of r needs.
func (r *Role) PortCount() int {
	n := 0
	for _, p := range r.Ports {
		n += p.Count
	}
	return n
}

// TaskRef names one task: a role and a 0-based index.
type TaskRef struct {
	Role  string `json:"role"`
	Index int    `json:"index"`
}

// StaticEnv is env without the variables whose value is the pod's own
// field (EnvVar.FieldPath): the environment contract gives those per task,
// so a target sets only these from the role.
func StaticEnv(env []EnvVar) []EnvVar {
	for i, e := range env {
		if e.FieldPath == "" {
			continue
		}
		out := append([]EnvVar{}, env[:i]...)
		for _, e := range env[i+1:] {
			if e.FieldPath == "" {
				out = append(out, e)
			}
		}
		return out
	}
	return env
}
