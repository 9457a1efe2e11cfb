# The storage rules of the shape table's "pytorchjob claims" rows: one
# claim per way a Nomad task gets it (mounts.go).
volume "training-data" {
  nomad_host_volume = "training"
  path              = "/lustre/proj/training"
  read_only         = true
}
volume "checkpoints" {
  path = "/gpfs/ckpt/${user}"
}
volume "scratch" {
  nomad_csi_volume = "scratch"
  access_mode      = "multi-node-multi-writer"
  attachment_mode  = "file-system"
  path             = "/scratch/shared"
}
