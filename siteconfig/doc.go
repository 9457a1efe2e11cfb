// Package siteconfig holds the site config file (jobshift.hcl) an operator
// writes once: targets' settings, image and plugin rules, defaults. The
// Nomad HCL2 jobspec writer lives next to its only user, in
// drivers/nomad/jobhcl.
package siteconfig
