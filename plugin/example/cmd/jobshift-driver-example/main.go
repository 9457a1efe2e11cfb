// Command jobshift-driver-example serves the example driver as a jobshift
// plugin. Put the binary in a plugin directory (see `jobshift plugins`) and
// run jobs with `jobshift run -to example job.yaml`.
package main

import (
	"github.com/jobshift/jobshift/plugin"
	"github.com/jobshift/jobshift/plugin/example"
)

func main() {
	plugin.Serve(example.New(""), example.Version)
}
