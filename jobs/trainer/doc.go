// Package trainer reads Kubeflow Trainer v2 jobs (trainer.kubeflow.org/v1alpha1,
// releases v2.0 … v2.3): a TrainJob and the TrainingRuntime or
// ClusterTrainingRuntime it names, applied to each other as Trainer's
// controller does, into one jobs.Job. Rules cite kubeflow/trainer files at
// their tag (the fetched upstream: tags v2.0.0, v2.1.0, v2.2.0, v2.3.0).
//
// # Finding the runtime
//
// runtimeRef.kind defaults to ClusterTrainingRuntime
// (pkg/apis/trainer/v1alpha1/trainjob_types.go). The runtime is looked
// for in the job file itself (any document order), then in
// jobs.ReadOptions.Runtimes (-runtime FILE, then the site's
// trainer { runtime_dirs }), then, for ClusterTrainingRuntimes, among the
// built-in runtimes embedded byte for byte from manifests/base/runtimes
// @v2.3.0 (builtin.go). Warnings about the built-in manifests' own fields
// are dropped: they are not the user's to fix.
//
// # The job
//
// One role per replicated job, in the runtime's order, named after it,
// with its dependsOn (Role.DependsOn). Pod templates are read by
// jobs/kubeflow's pod reader (kubeflow.PodReader), so resources, volumes,
// env references, sidecars and the -lossy rule are those of the Kubeflow
// reader; the task is the container named node (constants.Node), or
// dataset-initializer / model-initializer, else the first. A role has
// replicas × parallelism tasks; the trainer job (label
// trainer.kubeflow.org/trainjob-ancestor-step: trainer) and the
// initializers have one Job (builder.go), the trainer's pod count is
// mlPolicy.numNodes and then trainer.numNodes (trainingruntime.go, the
// plugins). spec.trainer's image, command and args replace the trainer
// container's; its env is upserted (apply.UpsertEnvVars); resourcesPerNode
// is merged over the container's. Each role keeps its Job's backoffLimit
// (default 6, batch/v1) in Role.BackoffLimit; JobSet's
// failurePolicy.maxRestarts becomes Retry.JobRetryCount, successPolicy
// Completion.SuccessRoles/SuccessAny, coscheduling's
// scheduleTimeoutSeconds Completion.GangTimeoutSeconds (Volcano's
// pod-group policy is a warning), activeDeadlineSeconds the deadline.
// volumeClaimPolicies templates become PVC volumes of every pod.
//
// # ML policies
//
// policy.go applies each plugin's EnforceMLPolicy and records in
// jobs.Job.Extras.Trainer what the trainer-* contracts
// (translate/contract/trainer.go) need: torch (PET_NPROC_PER_NODE with the
// "auto" rule), mpi (node counts with runLauncherAsNode, slots, the
// hostfile of pod FQDNs as a Role.Files entry at /etc/mpi/hostfile, the
// ssh port every node and the launcher get for the ssh emulation, whose
// barrier keeps the launcher's "node Ready" dependency, so it is not a
// Role.DependsOn step), jax,
// xgboost (GPUs per node), plain (no contract: trainer.env only). flux
// runtimes are refused. The torchtune mode (a trainer command of exactly
// [tune, run], torchtune.go) builds the command line as torch.go and
// torchtune.go @v2.3.0 do: --rdzv_endpoint=<job>-node-0-0.<job>:29500 for
// more than one node or process, the recipe and --config for the node,
// process and GPU counts, the runtime's immutable overrides; the model
// rules of validateTorchTune are refused at their fields. The endpoint is
// node 0's name, which the task view resolves (node 0's own name; for its
// peers through contract.HostsVar), and torchrun's static rendezvous binds
// port 29500 on node 0's host itself. In containers the peers of a
// multi-node job (llama3_3/70B only) cannot resolve it: a warning.
//
// # Admission
//
// What Trainer's admission refuses is an error at its position: the name
// (RFC 1035, ≤ 63), activeDeadlineSeconds < 1, managedBy outside its enum,
// the reserved variables of the torch, mpi and xgboost policies in
// trainer.env, numNodes ≥ 2 with runLauncherAsNode but no launcher or node
// job, an initializer without its job, container or "initializer" volume
// mount, overrides of jobs or containers the runtime lacks, env overrides
// of the node and initializer containers, a runtime patch manager that is
// not a domain-prefixed path (jobset.go Validate, the plugins' Validate).
//
// # Overrides and initializers
//
// podSpecOverrides (v2.0), podTemplateOverrides (v2.1) and runtimePatches
// (v2.2+) are applied per target job: container env and volume mounts of
// the task's container, pod volumes; placement and identity fields are
// warnings; init containers are -lossy errors. spec.initializer sets
// STORAGE_URI and env on the initializer jobs (builder.go Initializer); a
// storage URI that would be downloaded (hf://, s3://, gs://, http(s)://,
// oci://) is refused unless the site maps it (ReadOptions.StoragePath,
// trainer { storage_uri "PATTERN" { path = ... } }), and then an
// initializer of the upstream image copies the site's directory to
// /workspace/dataset or /workspace/model.
package trainer
