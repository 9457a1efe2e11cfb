# What `jobshift run|status|logs|stop -to nomad` needs, for one user's token (apply per namespace
# users submit to). Checked on an ACL-enabled agent by integration/nomadacl.
# Every holder can read and write every job's Variables in the namespace and stop or replace every
# job there: for users who must be kept apart, use per-user namespaces and the policies
# `jobshift nomad-acl -user NAME` writes instead (docs/operators.md, threat model).
namespace "default" {
  # plan, register, read allocations and events, stop and restart tasks, stop the job, read task
  # logs; read the tasks' files: a Volcano Job's policy restarts in place, which the restart loop
  # records in its task directory (Nomad serves no task's secrets/ or private/ directory through
  # them: client/allocdir/alloc_dir.go ReadAt, v1.11.3)
  capabilities = ["submit-job", "read-job", "list-jobs", "read-logs", "read-fs", "alloc-lifecycle"]
  variables {
    # verdicts (jobshift/results/<job ID>) and the tasks' end markers
    # under them (.../ended/...), deleted with the verdict and at submit
    path "jobshift/*" {
      capabilities = ["write", "read", "list", "destroy"]
    }
    # a job's PAI v2 secrets and ssh job key (nomad/jobs/<job ID>, which its
    # tasks read with their workload identity): written before the job,
    # deleted with its verdict; its topology snapshots (nomad/jobs/<job
    # ID>/<group>, read by that group's tasks), written by run's watcher
    # once every task of an attempt is registered
    path "nomad/jobs/*" {
      capabilities = ["write", "read", "destroy"]
    }
  }
}
