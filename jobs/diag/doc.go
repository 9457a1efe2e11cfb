// Package diag is the one diagnostics path of jobshift: every problem is an
// hcl.Diagnostic with a located subject, errors carry hcl.Diagnostics whole
// (Error), and there is one text writer (Text) and one JSON writer (JSON).
//
// Readers, translate, the contract and every driver build hcl.Diagnostics;
// the CLI and drivers' warning output print them only through this package,
// so `file:line:col: severity: summary` is written in exactly one place.
package diag
