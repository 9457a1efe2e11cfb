# What `jobshift controller` needs: every jobshift job of every namespace it serves. Checked on an
# ACL-enabled agent by integration/nomadacl. Attach it to the controller job in namespace
# jobshift-system only, where no user's policy grants anything (jobshift nomad-acl -controller).
namespace "*" {
  # list and read jobs and allocations, re-register a job for a retry, stop and restart tasks,
  # stop jobs; read the tasks' files: a Volcano Job's policy restarts in place, which the restart
  # loop records in its task directory (Nomad serves no task's secrets/ or private/ directory
  # through them: client/allocdir/alloc_dir.go ReadAt, v1.11.3)
  capabilities = ["list-jobs", "read-job", "submit-job", "read-fs", "alloc-lifecycle"]
  variables {
    # verdicts (jobshift/results/<job ID>) and the tasks' end markers
    # under them (.../ended/...), deleted with the verdict
    path "jobshift/*" {
      capabilities = ["write", "read", "list", "destroy"]
    }
    # a job's secrets Variable, deleted with its verdict; its topology
    # snapshots (nomad/jobs/<job ID>/<group>), written once every task of
    # an attempt is registered, deleted before a retry and with the verdict
    path "nomad/jobs/*" {
      capabilities = ["write", "read", "destroy"]
    }
  }
}
