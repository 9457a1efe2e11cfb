// Package hcl holds jobshift's HCL: the site config file (jobshift.hcl) an
// operator writes once, and HCL2 emission of Nomad jobs.
package hcl
