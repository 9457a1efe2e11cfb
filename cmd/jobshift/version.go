package main

import (
	"fmt"
	"io"
	"runtime"
)

func init() {
	register("version", "Print the jobshift version", func(args []string, stdout, stderr io.Writer) int {
		fmt.Fprintf(stdout, "jobshift v%s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	})
}
