nomad {
  driver = "java"
}
slurm {
  layuot = "het"
}
role "*" {}
role "ps" {}
