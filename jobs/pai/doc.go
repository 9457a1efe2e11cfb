// Package pai reads OpenPAI job files: v1 job config JSON (all eras, and the
// LeinaoPAI dialect) and protocol v2 YAML, including the rest-server's
// <% %> rendering, into a jobs.Job.
//
// Entry points: Read (detects v1 JSON or v2 YAML by content), ReadV1,
// ReadV2, IsPAI. Each returns a job only when there are no errors; every
// diagnostic carries file:line:col. The facts implemented are in
// shared/spec/pai.md §1 (v1), §2 (v2), §3.4 (LeinaoPAI) and §4 (completion
// and retry). Choices made where the sources leave room:
//
//   - v1 unknown fields are warnings (OpenPAI's Joi schema refused them;
//     the files are still worth running). v2 unknown fields at the top
//     level, in a task role, completion, resourcePerInstance, a dockerimage
//     prerequisite or a deployment role are errors unless ReadOptions.Lossy,
//     because the AJV schema refused them and a misspelt key would
//     otherwise lose its effect silently.
//   - v1 killAllOnCompletedTaskNumber > 0 is read with its v0.4–v0.6
//     meaning (any completed task ends the job: minSucceededTaskCount 1 on
//     every role that does not set its own), with a warning, because the
//     file does not say which release it was written for and no later
//     release gave it any effect.
//   - The LeinaoPAI dialect is recognised by its registry (10.11.3.8:5000),
//     its variables (PAI_PORT_MAP_1000x, unlabelled PAI_PORT_LIST_<r>_<i>)
//     or its cluster mounts (/userhome, /gdata, /gshare), always with a
//     warning naming the reason; ReadOptions.Dialect "leinao" forces it and
//     "pai" turns detection off. LeinaoPAI roles get one implicit port group
//     {leinao, 3} instead of OpenPAI's implicit ssh/http.
//   - v2 $secrets are never substituted: the rendered command keeps
//     `<% $secrets.x %>` as PAI's rest-server did, image credentials keep
//     their references too, and the values only live in Job.Secrets.
//     Runtime plugin parameters are recorded unrendered (openpai-runtime
//     renders them per role at run time).
package pai
