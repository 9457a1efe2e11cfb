nomad {
  driver           = "java"
  priority         = 101
  cpu_mhz_per_core = 0
  barrier_timeout  = "soon"
  datacenters      = "dc1"
  helper           = "jobshift"
  env_helper       = "bin/jobshift-env"
  work_dir         = "scratch"
  spread_nodes     = -1
  docker_gpu_runtime = 3
  docker_cap_add     = ["SYS_ADMIN", "IPC_LCOK"]
  docker_network     = "bridge"
}
slurm {
  layout      = "hetero"
  container   = "docker"
  gpu_request = "gpus"
  address     = "ip"
  port_base   = 80
  time_limit  = "2h"
  sbatch      = ["--mem=4G"]
}
defaults {
  cpu        = 0
  memory_mib = -1
}
