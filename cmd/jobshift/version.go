package main

import (
	"fmt"
	"io"
	"runtime"
)

func init() {
	register("version", "Print the jobshift version", func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			if len(args) == 1 && isHelpArg(args[0]) {
				fmt.Fprintln(stdout, "Usage: jobshift version\n\n  Prints jobshift's version, the Go release it was built with and the platform.")
				return exitOK
			}
			fmt.Fprintln(stderr, "Usage: jobshift version")
			return exitUsage
		}
		fmt.Fprintf(stdout, "jobshift v%s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	})
}
