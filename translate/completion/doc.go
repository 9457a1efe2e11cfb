// Package completion decides, from each task's state, whether a job attempt
// is still running, has succeeded or has failed, which tasks to stop, and
// whether to retry — by the rules of the platform the job was written for.
// Pure functions; every driver uses them. README.md lists the rules one per
// line with their sources, and the calling sequence a driver follows.
package completion
