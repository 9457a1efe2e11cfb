// Command jobshift-driver-example serves the example driver as a jobshift
// plugin. Put the binary in a plugin directory (see `jobshift plugins`) and
// run jobs with `jobshift run -to example job.yaml`.
package main

import (
	"github.com/jobshift/jobshift/plugin"
	"github.com/jobshift/jobshift/plugin/example"
)

func main() {
	var ws plugin.Warnings
	d := example.New("")
	d.Warn = ws.Report // Render's warnings go back to the host with the artifact
	plugin.ServeWith(d, example.Version, &ws)
}
