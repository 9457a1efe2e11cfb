// Package contract defines, once, the environment each source platform gave
// its tasks, and renders it three ways that must agree: a Go oracle (Eval), a
// POSIX shell script (Shell, for Slurm) and a consul-template text
// (NomadTemplate, for Nomad).
//
// # One definition, three evaluators
//
// For a job, a role and (UAI only) a process, the contracts build a small
// program: an ordered list of variable names, each with a value expression
// made of literals and references to the topology (a task's address, the
// ports of one label of a task, the index of the task itself). Names and the
// shape of every value depend only on the job and the role (and, for a
// variable only task 0 has, on whether the index is 0), never on the
// run-time topology; only the references are filled at run time. Eval
// evaluates the program in Go, Shell compiles it to POSIX sh over input
// variables, NomadTemplate compiles it to consul-template over nomadService
// registrations. The differential tests run all three on random topologies.
//
// Entry points: Eval / EvalAll (oracle, local driver, explain), Shell
// (Slurm; its input format is documented there), NomadServicesFor and
// NomadTemplate (Nomad: one group service per role and port slot with tag
// idx-${NOMAD_ALLOC_INDEX}, and an env = true template over them),
// PortLabels (which labels a topology carries), Check (all rejections as
// diagnostics), SampleTopology / WriteTable (explain).
//
// Whatever contracts a job has, a role's env variables that take a field of
// the pod (jobs.EnvVar.FieldPath, Kubernetes fieldRef: metadata.name,
// status.podIP, status.podIPs; spec.nodeName, status.hostIP,
// status.hostIPs, the task's node, which the target gives at run time:
// UsesNode) come first in every program, per task (fieldref.go); a
// contract's variable of the same name replaces one.
//
// # Contracts (spec/pai.md §3, spec/kubeflow.md §2, §4, seeds 000 and 002)
//
//   - pai: OpenPAI k8s era. Static variables in runtime-env.js/k8s.js order,
//     then the dynamic ones in framework_parser.py order. Dynamic names use
//     PAI's convertName (lower case, only [a-z0-9] kept): role ps_server gives
//     PAI_HOST_IP_psserver_0 while PAI_TASK_ROLE_TASK_COUNT_ps_server keeps
//     the protocol name. Two roles that convert to the same name, or to an
//     empty one, are rejected (FrameworkController would have refused them).
//     The current-container block (PAI_CURRENT_CONTAINER_IP ... _PORT_LIST)
//     is placed after the current role's tasks instead of right after the
//     current task: only the order differs. NVIDIA_VISIBLE_DEVICES and FC_*
//     are not part of the contract (drivers own GPU visibility; FC_* were
//     FrameworkController internals). A v1 JSON null minFailed/minSucceeded
//     (only v1 jobs have nil) is exported as "" like the YARN era did.
//   - pai-yarn: the names only the YARN era (v0.11–v0.14) had, for v1 JSON
//     jobs, in yarnContainerScript.mustache order, with role names as given
//     (no conversion; roles in sorted order as jq keys gave them). APP_ID and
//     PAI_CONTAINER_ID are omitted (no YARN ids exist). dataDir, outputDir
//     and codeDir get the submission-time substitutions of $PAI_JOB_NAME,
//     $PAI_USER_NAME/$PAI_USERNAME and $PAI_DEFAULT_FS_URI (→ ""), exactly
//     like models/v1/job/yarn.js; an empty outputDir stays empty (no HDFS).
//   - leinao: LeinaoPAI, OpenPAI of the YARN era: first the pai-yarn
//     names (without those built from http/ssh ports, which LeinaoPAI
//     containers did not have, and without a YARN label for its three
//     mapped ports), then its own: host lists of IPs only,
//     PAI_PORT_LIST_<r>_<i> = ip,p1,p2,p3 and PAI_PORT_MAP_10001..10003 from
//     the topology's port label "leinao" (3 host ports mapped to the
//     container's 10001..10003), the current-task names of its README and
//     the PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX its own example uses.
//     Where both define a name LeinaoPAI's value wins; only
//     PAI_TASK_ROLE_<r>_HOST_LIST differs (IPs only, not ip:http). Where
//     tasks run in the host's network, drivers give the label the ports
//     10001..10003 themselves (one task per node).
//   - tf: TFJob v1.9 TF_CONFIG (compact JSON, cluster keys sorted, lower-case
//     types, evaluator listed unless Options.TFLegacyEvaluator, no TF_CONFIG
//     for a one-replica job, the sparse form for enableDynamicWorker).
//     TFJobs of an apiVersion before kubeflow.org/v1 (jobs.Job.KubeflowGen)
//     get their operators' rules: TF_CONFIG also for a one-replica job,
//     evaluators not listed (tfHasConfig, tfListsEvaluator).
//   - uai: UCloud UAI Train (seed 002), see uai.go for how the seed's
//     ambiguous task list is read. Its two ports per node are the role's
//     first two declared ports, or, as UAI users never declared any, two
//     ports under label "uai" that PortLabels asks every driver for.
//   - torch: PyTorchJob v1.9 MASTER_*/WORLD_SIZE/RANK/PET_*; for other jobs
//     (opt-in) derived from the first task of the first role, see torch.go.
//     PyTorchJobs of an apiVersion before kubeflow.org/v1 get
//     pytorch-operator's five variables instead, MASTER_ADDR=localhost on
//     the master, preceded by a TF_CONFIG for v1alpha1 (torchPreV1).
//   - xgboost, paddle, jax (training-operator v1.9.0) and mxnet (v1.8.1): the
//     variables of pkg/controller.v1/<kind>/ in the operator's order, see
//     kinds.go. PaddleJob's rendezvous task (index 0 of its type) alone
//     gets POD_IP_DUMMY, its own address (the operator's fieldRef to
//     status.podIP, from which the kubelet expanded its PADDLE_MASTER):
//     the one variable whose presence depends on the index (setFirst).
//     XGBoost's WORKER_PORT is the Worker's port (one number on
//     Kubernetes): a Worker's own where tasks have their own ports, Worker
//     0's on the Master.
//
// When two contracts set the same name, the later one in Options.Contracts
// wins and the variable keeps its first position.
//
// # Names that are not shell identifiers
//
// PAI v1 role names and port labels may contain '.' and '~'. The YARN era
// wrote such variables into a docker --env-file, so they existed in the
// container's environment although bash could not reference them. The
// oracle keeps them. The shell rendering exports identifier names with
// export and passes the others to the user command through
// `exec env -- NAME=VALUE ... utility`, the only POSIX way to put such a
// name into an environment. Nomad's env templates are parsed by
// go-envparse, which accepts [A-Za-z0-9_./] in names: '.' travels, '~'
// cannot, and NomadTemplate reports such names as an error.
//
// # PAI_WORK_DIR
//
// PAI_WORK_DIR is the task's working directory, known only inside the task.
// Eval and NomadTemplate do not return it; NeedsWorkDir tells a driver to
// export it right before the user command (the Shell rendering does so
// itself, since it runs in the task).
package contract
