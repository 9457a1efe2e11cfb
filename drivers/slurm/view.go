package slurm

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// viewData is what js_exec_view (sh/run.sh) reads for role ri: a task
// that runs on the node itself (no container) runs under the task
// namespace wrapper (drivers/taskns) with its platform host names, the
// index left as @I@ for the task to fill in (no name of any format holds
// an '@'). A container role gets nothing: Apptainer keeps the node's name.
func viewData(ri roleInfo, job *jobs.Job, ctr string) string {
	if ctr != "" {
		return ""
	}
	names := contract.HostNamesAt(job, ri.k, "@I@")
	return fmt.Sprintf("_t_ns_%d=1 _t_nsname_%d=%s\n", ri.k, ri.k, shQuote(strings.Join(names, " ")))
}
