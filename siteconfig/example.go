package siteconfig

// Example is the commented site config `jobshift config example` prints:
// every block with the settings an operator sets first, each explained, so
// that a new site starts from a file that validates as it is (a test parses
// it). README.md's "Site config" section is the reference for every field.
const Example = `# jobshift.hcl: the site config. Looked up at -config, $JOBSHIFT_CONFIG,
# ./jobshift.hcl, ~/.config/jobshift/jobshift.hcl. Every block and field is
# optional; an unknown one is an error at its position.
# Check it with: jobshift validate -config jobshift.hcl JOB_FILE

nomad {
  address     = "http://nomad.example:4646" # else NOMAD_ADDR, as for the nomad CLI
  datacenters = ["dc1"]
  driver      = "docker" # docker | raw_exec | exec | podman
  # helper    = "/usr/local/bin/jobshift" # on every client: plain 'nomad job run' ends by the job's rules
  # docker_network = "jobshift" # made with 'docker network create jobshift': docker tasks that each need a network of their own share a client
}

slurm {
  partition = "gpu"
  layout    = "auto" # auto | het | packed
  container = "none" # none | apptainer | pyxis
  sbatch    = ["--constraint=a100"] # extra #SBATCH lines for every job
}

# Resources of a role whose job asks for none (else the target's own tiny
# default applies: Nomad 100 MHz and 300 MB, Slurm 1 CPU and 1024 MiB).
defaults {
  cpu        = 2
  memory_mib = 8192
  shm_mib    = 1024
}

# Rules: the first rule in file order whose pattern matches wins, as a whole.
# Pull images of a dead registry from a mirror ("*" stands for what the
# pattern's "*" matched).
image "10.11.3.8:5000/*" {
  replace = "registry.example/mirror/*"
}

role "ps" {
  driver = "raw_exec"
}
role "worker*" {
  setup  = ["module load cuda/12.2"] # run by /bin/sh before the command (Slurm)
  sbatch = ["--gres-flags=enforce-binding"]
  env    = { NCCL_DEBUG = "INFO" } # never overrides what the job sets
}

# What a source GPU type (PAI gpuType) means here.
gpu_type "titanxp" {
  model = "TITAN Xp"
}

plugins {
  dirs    = ["/opt/jobshift/plugins"]
  allowed = ["jobshift-driver-*"]
}
`
