// Package contract defines, once, the environment each source platform gave
// its tasks, and renders it three ways that must agree: a Go oracle, a POSIX
// shell script (Slurm) and a consul-template text (Nomad).
package contract
