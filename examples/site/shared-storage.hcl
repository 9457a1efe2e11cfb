# Storage rules of a cluster with shared file systems, for the jobs of
# integration/testdata/view: the TFJob whose workers read a dataset claim
# and write checkpoints the chief reads (tfjob-shared.yaml), and the
# LeinaoPAI seed's cluster mounts (leinao-storage.json). The integration
# tests write the same rules with their temporary directories in place of
# these paths (integration/{nomad,slurm,multihost}).

# Read by every task; read-only whatever the job says.
volume "training-data" {
  path      = "/lustre/proj/training"
  read_only = true
}

# One directory per user: alice's jobs write /gpfs/ckpt/alice. A link
# there (or the user's directory being one) that leads out of the user's
# tree is refused on the node before the task starts.
volume "checkpoints" { path = "/gpfs/ckpt/${user}" }

# LeinaoPAI's cluster mounts: code and data in /gdata, home in /userhome.
volume "gdata" {
  path      = "/lustre/gdata"
  read_only = true
}
volume "userhome" { path = "/gpfs/home/${user}" }

# The Secrets and ConfigMaps the site keeps for each user (a command given
# no -secrets file reads them).
secrets { dir = "/etc/jobshift/secrets/${user}" }
# On a Nomad site they can be Nomad Variables instead, one per Secret
# (nomad var put jobshift/secrets/alice/store key=...), read with the
# user's own token, whose ACL policy grants that user's path only:
#   secrets { nomad_variable = "jobshift/secrets/${user}" }
