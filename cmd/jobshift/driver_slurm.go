package main

// The Slurm driver registers itself as "slurm" (drivers/slurm init).
import _ "github.com/jobshift/jobshift/drivers/slurm"
