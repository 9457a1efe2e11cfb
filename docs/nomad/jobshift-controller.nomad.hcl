# jobshift controller as a Nomad service job: enforces completion rules and retries for every
# jobshift job of the cluster, keeps no state (a replacement allocation resumes), and reaches the
# API through the Task API socket with its workload identity, so it holds no token. It runs in its
# own namespace, jobshift-system, where no user may submit jobs: Nomad attaches the controller's
# policy to a namespace and job ID, so whoever may register a job there under its ID gets the one
# policy spanning every user. With ACLs on (jobshift nomad-acl -controller writes these files):
#   nomad namespace apply acl/jobshift-system.namespace.hcl
#   nomad acl policy apply -namespace jobshift-system -job jobshift-controller \
#     jobshift-controller-wi docs/nomad/jobshift-controller.policy.hcl
# Set the variable to where the jobshift binary is on the clients (raw_exec runs host binaries).
# Checked on an ACL-enabled agent by integration/nomadacl.
variable "jobshift" {
  type    = string
  default = "/usr/local/bin/jobshift"
}

job "jobshift-controller" {
  type      = "service"
  namespace = "jobshift-system"

  group "controller" {
    count = 1

    restart {
      attempts = 10
      interval = "5m"
      delay    = "5s"
      mode     = "delay"
    }

    task "controller" {
      driver = "raw_exec"

      config {
        command = var.jobshift
        args    = ["controller", "-every", "30s", "-log-json"]
      }

      identity {
        env = true # NOMAD_TOKEN: the workload identity
      }

      env {
        # the Task API socket; jobshift talks to Nomad through it
        NOMAD_ADDR = "unix://${NOMAD_SECRETS_DIR}/api.sock"
      }

      resources {
        cpu    = 100
        memory = 128
      }
    }
  }
}
