// Command jobshift runs OpenPAI and Kubeflow training jobs, unchanged, on
// Nomad, Slurm or the local machine.
//
// The CLI is thin: each sub-command lives in its own file, registers itself
// with register() and turns flags into library calls.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/jobshift/jobshift/jobs/diag"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// command is one sub-command. run gets the arguments after the command name
// and returns the process exit code.
type command struct {
	synopsis string
	run      func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, synopsis string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{synopsis: synopsis, run: run}
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	defer cleanupPlugins()
	if name, ok := servedDriverName(os.Args[0]); ok && len(args) == 0 {
		return servePlugin(name, "", stderr)
	}
	helpOut, noColor = stdout, false
	diag.ForgetSecretFiles()
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			if c, ok := commands[args[1]]; ok {
				return c.run([]string{"-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "jobshift help: unknown command %q\n\n", args[1])
			usage(stderr)
			return exitUsage
		}
		usage(stdout)
		return exitOK
	}
	if args[0] == "-v" || args[0] == "-version" || args[0] == "--version" {
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "jobshift: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: jobshift <command> [options] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Runs distributed-training jobs, unchanged, on the local machine, Nomad or Slurm.")
	fmt.Fprintln(w, withFormats(formatsMark))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "    %-12s %s\n", n, commands[n].synopsis)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Options go before or after the file names (jobshift run job.yaml -to nomad); \"--\" ends them.")
	fmt.Fprintln(w, "Exit status: 0 ok; a failed job's own code; 128+signal when interrupted; 2 usage error or")
	fmt.Fprintln(w, "unplaceable job; 1 invalid job or other failure. 'jobshift <command> -h' for each command.")
}
