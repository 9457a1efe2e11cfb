package contract

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// WriteTable prints, for every task of the job on topo (and both processes
// of a UAI node), every variable the task gets, in the platform's order.
// Values that are not plain printable text are shown Go-quoted.
func WriteTable(w io.Writer, job *jobs.Job, topo Topology, opts Options) error {
	procs := Processes(job, opts)
	for k, r := range job.Roles {
		for _, proc := range procs {
			o := opts
			o.Process = proc
			for i := range r.Instances {
				env, err := Eval(job, topo, jobs.TaskRef{Role: r.Name, Index: i}, o)
				if err != nil {
					return err
				}
				title := fmt.Sprintf("%s-%d", r.Name, i)
				if proc != ProcessMain {
					title += " (" + proc + " process)"
				}
				fmt.Fprintf(w, "# %s  address %s\n", strconv.Quote(title)[1:len(strconv.Quote(title))-1], topo.Roles[k].Tasks[i].Addr)
				for _, v := range env {
					fmt.Fprintf(w, "%s=%s\n", printable(v.Name), printable(v.Value))
				}
				if NeedsWorkDir(job, o) {
					fmt.Fprintf(w, "%s=<the task's working directory>\n", WorkDirVar)
				}
				fmt.Fprintln(w)
			}
		}
	}
	return nil
}

func printable(s string) string {
	for _, c := range s {
		if c < ' ' || c == 0x7f || c == '"' && strings.HasPrefix(s, `"`) {
			return strconv.Quote(s)
		}
	}
	return s
}
