# What the in-job finisher (nomad.helper: the poststop `finish` task, or in a job `jobshift run`
# submitted the raw_exec main tasks themselves, which write their end markers under
# jobshift/results/<job ID>/ended/ and list them: `read` includes `list`) needs through its workload
# identity. Nomad attaches a policy to a namespace *and a job ID* only, never to a namespace alone:
#   nomad acl policy apply -namespace default -job <job id> jobshift-finisher jobshift-finisher.policy.hcl
# once per job ID (the policy name must differ per job). A site with ACLs on may run
# `jobshift controller` instead, which needs no per-job policy. Checked by integration/nomadacl.
# Its Variables grant covers every job's results in the namespace: `jobshift nomad-acl -job ID
# -namespace NS` writes one limited to that job's own verdict and markers.
namespace "default" {
  # read the job and its allocations; stop it once judged (deregister-job: Nomad 1.11.2 or later;
  # earlier servers know only submit-job, which also lets it register jobs)
  capabilities = ["read-job", "deregister-job"]
  variables {
    path "jobshift/*" {
      capabilities = ["write", "read"]
    }
  }
}
