# What `jobshift run|status|logs|stop -to nomad` needs, for one user's token (apply per namespace
# users submit to). Checked on an ACL-enabled agent by integration/nomadacl.
namespace "default" {
  # plan, register, read allocations and events, stop tasks and the job, read task logs
  capabilities = ["submit-job", "read-job", "list-jobs", "read-logs", "alloc-lifecycle"]
  variables {
    # verdicts (jobshift/results/...) and PAI v2 secrets (jobshift/secrets/...)
    path "jobshift/*" {
      capabilities = ["write", "read", "list", "destroy"]
    }
  }
}
