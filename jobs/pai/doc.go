// Package pai reads OpenPAI job files: v1 job config JSON (all eras, and the
// LeinaoPAI dialect) and protocol v2 YAML, including the rest-server's
// <% %> rendering, into a jobs.Job.
package pai
