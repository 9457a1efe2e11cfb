// Package translate turns a jobs.Job into a Plan: the job plus every decision
// a driver needs that does not depend on the target (contracts, site rules,
// user). Sub-packages hold the two cross-target engines: contract (the
// environment each task gets) and completion (when a job has ended, and how).
package translate
