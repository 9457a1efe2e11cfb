package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/jobshift/jobshift/siteconfig"
)

func init() {
	register("config", "Print a commented site config to start from (config example)", runConfig)
}

const configHelp = `
Usage: jobshift config example

  Prints a commented site config (jobshift.hcl) that validates as it is:
  the settings an operator sets first, each explained. README.md ("Site
  config") lists every field. Check an edited file with
  'jobshift validate -config jobshift.hcl JOB'.

Examples:
  jobshift config example > jobshift.hcl
`

func runConfig(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && args[0] == "example":
		fmt.Fprint(stdout, siteconfig.Example)
		return exitOK
	case len(args) == 1 && isHelpArg(args[0]):
		fmt.Fprintln(stdout, strings.TrimSpace(configHelp))
		return exitOK
	}
	fmt.Fprintln(stderr, strings.TrimSpace(configHelp))
	return exitUsage
}
