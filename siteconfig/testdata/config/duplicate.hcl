slurm { partition = "a" }
slurm { partition = "b" }
