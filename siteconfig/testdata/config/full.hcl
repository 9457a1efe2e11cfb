# Every field, all valid.
nomad {
  address          = "http://nomad.example:4646"
  region           = "global"
  namespace        = "ml"
  namespace_per_user = false
  datacenters      = ["dc1", "dc2"]
  node_pool        = "gpu"
  priority         = 70
  driver           = "podman"
  cpu_mhz_per_core = 2400
  barrier_timeout  = "5m"
  helper           = "/usr/local/bin/jobshift"
  env_helper       = "/usr/local/bin/jobshift-env"
  work_dir         = "/scratch"
  spread_nodes     = 3
  docker_gpu_runtime = "nvidia-container-runtime"
  docker_cap_add     = ["sys_admin", "CAP_IPC_LOCK"]
  docker_network     = "jobshift"
  task_logs          = false
}

slurm {
  partition   = "gpu"
  account     = "ml-team"
  qos         = "normal"
  time_limit  = "1-12:00:00"
  layout      = "packed"
  container   = "apptainer"
  gpu_request = "gres"
  port_base   = 20000
  address     = "hostname"
  spread_nodes = 3
  sbatch      = ["--constraint=a100", "--reservation=train"]
  mpi         = "pmix"
}

defaults {
  cpu        = 2
  memory_mib = 8192
  shm_mib    = 1024
}

image "10.11.3.8:5000/*" {
  replace = "registry.example/mirror/*"
}
image "openpai/*" {}

role "ps" {
  sbatch     = ["--nice=10"]
  setup      = ["module load python/3.11"]
  driver     = "raw_exec"
  docker_cap_add = []
  cpu        = 0.5
  memory_mib = 2048
}
role "*" {
  env     = { NCCL_DEBUG = "INFO", OMP_NUM_THREADS = "4" }
  shm_mib = 1024
}

gpu_type "titanxp" {
  model = "NVIDIA TITAN Xp"
}
gpu_type "*" {
  min_memory_mib = 11000
}

plugins {
  dirs    = ["/opt/jobshift/plugins"]
  allowed = ["jobshift-driver-*"]
}
