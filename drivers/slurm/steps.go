package slurm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// checkSteps refuses, located, init containers (jobs.Role.Init), which the
// batch script does not run yet (the task would start without them), and
// variables whose value comes from a Kubernetes Secret (the batch script
// would hold the value).
func checkSteps(r *jobs.Role) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if e, ok := r.SecretEnv(); ok {
		diags = append(diags, jobs.Errorf(e.Pos, refused, "Role %s: the variable %s takes its value from a Kubernetes Secret; jobshift delivers such values locally (jobshift run -to local) but not yet on Slurm, where the value would be written into the batch script.", r.Name, e.Name))
	}
	if len(r.Init) == 0 {
		return diags
	}
	return append(diags, jobs.Errorf(r.Init[0].Pos, refused, "Role %s has init container %q (and %d more); jobshift runs init containers locally (jobshift run -to local) but not yet on Slurm, and would start the task without them. Fold them into the main command or run locally.", r.Name, r.Init[0].Name, len(r.Init)-1))
}

// checkOrder refuses a Ready dependency (jobs.Role.DependsOn), which the
// batch script does not keep yet: it sees a task's end, not its start.
// Complete dependencies are kept (orderData, js_launch_after).
func checkOrder(r *jobs.Role) hcl.Diagnostics {
	for _, d := range r.DependsOn {
		if d.Status != jobs.DependsComplete {
			return hcl.Diagnostics{jobs.Errorf(d.Pos, refused, "Role %s starts only once role %s is %s (every task started); the batch script keeps Complete dependencies but not yet Ready ones, and would start both roles at once. Run it locally (jobshift run -to local).", r.Name, d.Role, d.Status)}
		}
	}
	return nil
}

// orderData renders _jsh_after_R, the indices of the roles role R waits
// to complete, for js_launch_after (sh/batch.sh).
func orderData(job *jobs.Job) string {
	var b strings.Builder
	for k, r := range job.Roles {
		var after []string
		for _, d := range r.DependsOn {
			if i := slices.IndexFunc(job.Roles, func(x *jobs.Role) bool { return x.Name == d.Role }); i >= 0 && d.Status == jobs.DependsComplete {
				after = append(after, strconv.Itoa(i))
			}
		}
		if len(after) > 0 {
			fmt.Fprintf(&b, "_jsh_after_%d='%s'\n", k, strings.Join(after, " "))
		}
	}
	return b.String()
}
