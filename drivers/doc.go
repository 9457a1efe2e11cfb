// Package drivers defines the Driver interface every target implements
// (local processes, Nomad, Slurm, external plugins), shaped like torchx's
// scheduler split: Render (dry run, the exact artifact) → Submit →
// Watch / Stop / Logs.
package drivers
