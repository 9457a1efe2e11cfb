package main

import (
	"fmt"
	"strings"

	"github.com/jobshift/jobshift/jobs"
)

// explainVolcano describes a Volcano Job's lifecycle: the gang, minSuccess,
// maxRetry and its policies, task ones first as Volcano matches them.
func explainVolcano(job *jobs.Job) string {
	v := job.Extras.Volcano
	if v == nil {
		return "  Volcano: every pod must end\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  Volcano: completes when every pod ended with at least minAvailable %d Succeeded", v.MinAvailable)
	if v.MinSuccess != nil {
		fmt.Fprintf(&b, ", or as soon as minSuccess %d pods Succeeded", *v.MinSuccess)
	}
	fmt.Fprintf(&b, "; maxRetry %d\n", v.MaxRetry)
	line := func(who string, p jobs.VolcanoPolicy) {
		on := strings.Join(p.Events, ", ")
		if p.ExitCode != nil {
			on = fmt.Sprintf("exit code %d", *p.ExitCode)
		}
		fmt.Fprintf(&b, "    %s: %s → %s\n", who, on, p.Action)
	}
	for _, t := range v.Tasks {
		for _, p := range t.Policies {
			line("task "+t.Name, p)
		}
	}
	for _, p := range v.Policies {
		line("job", p)
	}
	return b.String()
}
