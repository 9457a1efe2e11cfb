// Package lint finds the platform variables a job's commands use that its
// tasks will never get: a command that reads $PAI_TASK_ROLE_wroker_HOST_LIST
// runs with an empty value on every platform, silently. jobshift holds the
// whole contract (translate/contract), so it can say so before the job runs.
//
// Every `$NAME` / `${NAME}` of a role's command (a PAI bash script, the
// deployments' pre- and post-commands folded into it, a Kubeflow container's
// `sh -c` script) and of its environment values is found by a real shell
// parser (mvdan.cc/sh/v3/syntax), never by a pattern. A name is checked when
// it looks like a platform variable: one some contract jobshift knows would
// give this job (evaluated by the contract oracle over the sample topology),
// or one of the contracts' name families (PAI_*, PET_*, OMPI_MCA_*, ...).
// A name the role's tasks get, the job or the site sets, the script assigns
// itself, or that is read with a default (`${NAME:-x}`) is fine. Otherwise
// the warning says why and what was probably meant: the runtime's spelling
// of a role name (PAI lower-cases role names and drops everything but
// [a-z0-9] in dynamic names), an index past the role's instances, a contract
// the job does not use (-contract tf for TF_CONFIG in a PAI job), or a typo.
package lint
