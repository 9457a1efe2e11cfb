// Package kubeflow reads Kubeflow training jobs (TFJob in every API
// generation since 2017, PyTorchJob, MPIJob v1alpha1 … v2beta1) into a jobs.Job.
// Facts are from ../shared/spec/kubeflow.md (§1 TFJob schema, §3
// completion, §4 PyTorchJob, §5 MPIJob).
//
// # Entry points
//
// Read(src, opts) reads one file; IsKubeflow(src) sniffs the content (a
// `kind:` line naming TFJob/TfJob/PyTorchJob/MPIJob, an AppWrapper around
// one, or a file whose only content is a commented-out job) so that a loader
// can dispatch without parsing, and broken YAML still gets this reader's
// located errors.
//
// # Parsing
//
// go.yaml.in/yaml/v3 (the maintained fork of yaml.v3) into yaml.Node
// through jobs/yamlpos, never into Go structs: every value keeps its line
// and column, which become the Pos fields of the job model and the
// subjects of diagnostics. Multi-document files are split; the one job
// document is read (also when wrapped in an AppWrapper:
// workload.codeflare.dev spec.components[].template or mcad.ibm.com
// spec.resources.GenericItems[].generictemplate); other documents (PVC,
// RBAC, ConfigMap) get a located "Ignored document" warning; a second job
// is an error (-lossy: warning). A file with no document is an error.
//
// Duplicate mapping keys (the corpus has `restartPolicy` twice in one pod
// spec): yaml.v3 rejects them when decoding into Go values, PyYAML and
// kubectl's YAML→JSON path keep the last. jobshift keeps the last too, with
// a located warning naming both lines, so a file Kubernetes users applied
// for years still reads, and the user learns about the ambiguity.
//
// Scalars are typed as Kubernetes types them after its YAML→JSON step: a
// number where a string belongs (`value: 1`, `nprocPerNode: 4`, `args:
// [--steps, 10]`) or a string where an integer belongs (`replicas: "2"`) is
// an error, because the API server rejects it.
//
// # Versions
//
//   - TFJob list form: mlkube.io/v1beta1 and tensorflow.org/v1alpha1 (kind
//     TfJob, camelCase or the first example's snake_case keys) and
//     kubeflow.org/v1alpha1: replicaSpecs[] with tfReplicaType
//     MASTER|PS|WORKER (default MASTER, exact capitals), tfPort (default
//     2222), replicas (default 1), the pod template's restartPolicy (absent:
//     Kubernetes' Always, with a warning); terminationPolicy chief must
//     exist; tensorboard with an empty logDir is the operator's "invalid
//     spec" error; a PS without template (the operator's built-in gRPC
//     server) is an error (-lossy: the role keeps tfImage and no command).
//   - TFJob kubeflow.caicloud.io/v1alpha1: tfReplicaSpec[] with PS/Worker;
//     that controller passed the cluster as command-line flags, not
//     TF_CONFIG, so reading it is an error unless -lossy; its host lists
//     used the container's first containerPort, which becomes tfjob-port.
//   - TFJob map form v1alpha2, v1beta1, v1beta2, v1: tfReplicaSpecs keys
//     matched case-insensitively to Chief, Master, PS, Worker, Evaluator
//     (Role.Name and Role.ReplicaType are the lower-cased type, as TF_CONFIG
//     and pod names use it); unknown keys are a warning (the TFJob webhook
//     accepts them); Chief with Master is an error. Replica restartPolicy
//     defaults to Never and overrides the template's (warning). Run policy
//     fields are read at the top of spec and under spec.runPolicy for every
//     version; when both are set, runPolicy wins with a warning.
//     cleanPodPolicy defaults to Running (v1alpha2 … v1beta2) and None (v1,
//     read as the v1.9 API). successPolicy, enableDynamicWorker,
//     schedulingPolicy.priorityClass are kept; other schedulingPolicy
//     fields, suspend and managedBy are warnings.
//   - PyTorchJob v1alpha1 list form (replicaType MASTER|WORKER,
//     spec.masterPort, spec.backend), v1alpha2 … v1 map form (Master,
//     Worker only; restartPolicy default OnFailure; cleanPodPolicy default
//     None). The webhook's rules are errors: Master has exactly 1 replica,
//     Worker at least 1, elasticPolicy needs Worker, nprocPerNode and
//     elasticPolicy.nProcPerNode exclude each other; before kubeflow.org/v1
//     a Master is required. elasticPolicy is kept verbatim in
//     Extras.ElasticPolicy (consumers apply the operator's defaults: min/max
//     copied from each other or Worker.replicas, rdzvBackend c10d);
//     nprocPerNode goes to Role.NprocPerNodeSpec (and Role.NprocPerNode when
//     it is an integer), on every role.
//   - MPIJob v1alpha1 (single template: launcher + `sleep 365d` workers),
//     v1alpha2, v1 and v2beta1 (mpiReplicaSpecs Launcher/Worker): roles
//     launcher and worker, the first container of each template, an
//     implicit ssh port 22, Extras.MPI (slots, implementation, rsh agent,
//     host-name suffix), completion kind mpi (the launcher decides); see
//     mpijob.go for the per-generation defaults and their sources.
//   - XGBoostJob, PaddleJob, JAXJob (kubeflow.org/v1, training-operator
//     v1.9) and MXJob (v1.8.1; jobMode MXTrain or MXTune, the templates'
//     tuner-server-key annotations in Extras.MXNet): the map form with each
//     kind's defaults and webhook refusals, see kinds.go. Their replica
//     keys are exact (Master, not master: the v1.9.0 webhooks compare them
//     before defaulting); MXJob's match in any case, as its defaulting
//     camel-cased them. Files of other
//     operators (KubeDL, PaddleFlow's batch.paddlepaddle.org, the standalone
//     xgboost- and mxnet-operators) are refused (-lossy: read as v1).
//     Kinds of other systems (RayJob, SparkApplication, JobSet, Job ...) are
//     named as training jobs jobshift cannot run.
//
// # Pod template
//
// The container named tensorflow / pytorch is the task. Every generation's
// validation rejected a replica without one, so its absence is an error
// (-lossy: warning, container 0 is the task). A job name that is not a
// DNS-1035 label is an error for kubeflow.org/v1 (the v1.6+ validation and
// v1.9 webhooks reject it; -lossy: warning) and a warning for the older
// apiVersions, whose operators admitted it.
//
// # Generations
//
// jobs.Job.KubeflowGen (from apiVersion) selects the operator generation's
// rules downstream: translate/contract (TF_CONFIG for a lone replica and
// no evaluator before v1.0.1; pytorch-operator's MASTER_ADDR=localhost on
// the master) and translate/completion (pre-v1 ExitCode codes, the v1alpha1
// chief rule). Here, successPolicy and enableDynamicWorker in a pre-v1
// TFJob are dropped with a warning (they arrived in v1.0.1). command → Command.Command
// (replaces ENTRYPOINT), args → Command.Args (replace CMD), no shell.
// Kubernetes' $(VAR) expansion is applied as the kubelet does it (env values
// see earlier variables; command and args see the whole env; $$ escapes;
// undefined references stay literal), so the argv is what the pod ran. A
// reference to a variable the operator injects (TF_CONFIG; MASTER_ADDR,
// RANK, WORLD_SIZE, PET_* ...) cannot be expanded before run time: error
// (-lossy: kept literally). Resources: per resource the limit, else the
// request; CPU rounded up to millicores, memory up to MiB; nvidia.com/gpu and
// amd.com/gpu are GPUs (GPUType empty for nvidia.com/gpu, else the resource
// name); other nvidia.com/<model> names are GPUs of that type (warning); the
// rest goes to Resources.Extended. Ports: the operator's named port
// (tfjob-port / pytorchjob-port) per replica type, the default (2222 / 23456,
// Implicit) appended when absent; other container ports are kept.
//
// # What cannot be carried: the -lossy rule
//
// jobshift runs one process per task on Nomad, Slurm or the local machine,
// with no Kubernetes API. Pod-spec content it cannot reproduce is reported
// with its position. The rule: if dropping it changes what the job
// computes or what the program sees, it is an error, and -lossy
// (ReadOptions.Lossy) turns exactly those errors into warnings; if it only
// concerns placement, identity or Kubernetes plumbing, it is a warning.
//
// Errors unless -lossy:
//   - sidecar containers (any container besides the task's) and
//     initContainers: they run code;
//   - env valueFrom secretKeyRef / configMapKeyRef and envFrom
//     configMapRef / secretRef that are not optional, valueFrom
//     resourceFieldRef and a fieldRef other than metadata.name,
//     status.podIP(s) (fieldref.go): the program would miss a variable;
//   - $(VAR) references to a fieldRef variable in command, args or env;
//   - a configMap or secret volume whose object is neither in the file nor
//     given with -secrets (see objects.go);
//   - lifecycle.postStart, volumeDevices;
//   - $(VAR) references to operator-injected variables (see above);
//   - v1alpha1 default PS, custom terminationPolicy, caicloud's flag contract,
//     a second job in the file.
//
// Warnings:
//   - optional Secret/ConfigMap references (Kubernetes would also run
//     without them);
//   - affinity, nodeSelector, nodeName, tolerations, topologySpreadConstraints,
//     schedulerName, priority(ClassName), imagePullSecrets, service accounts,
//     DNS settings, hostAliases, hostname/subdomain, securityContext (pod
//     and container), hostNetwork/hostIPC/hostPID, runtimeClassName,
//     terminationGracePeriodSeconds, pod activeDeadlineSeconds, probes,
//     preStop, hostPort, resource claims;
//   - unknown fields at any level, user env that the operator overrides
//     (TF_CONFIG, RANK, ...), generateName (used as the name without the
//     random suffix), placeholder-looking images, replicas: 0.
//
// Other volumes (persistentVolumeClaim, azureFile, cephfs, ...) are carried
// in Role.Volumes with their kind, their claim or share name as Source,
// subPath, and Used when the command, args, workingDir or an env value
// names a path under the mountPath; translate.Build, which knows the site's
// volume rules, refuses a Used one no rule maps (a warning with -lossy).
// hostPath, emptyDir and nfs volumes are carried in Role.Volumes; a
// memory-backed emptyDir at /dev/shm becomes Resources.ShmMiB (its sizeLimit,
// else the memory limit). Template metadata (labels, annotations such as
// sidecar.istio.io/inject) and imagePullPolicy are dropped silently: they
// have no meaning off Kubernetes and no effect on the job.
package kubeflow
