package translate

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// applyDefaults fills what a role left unrequested (after the role rules)
// from the site's defaults {} block, and warns about what stays unrequested:
// every target then applies a default of its own that was never chosen for
// a training task (Nomad: 100 MHz and 300 MB; Slurm: 1 CPU and 1024 MiB,
// drivers/slurm; a Docker /dev/shm of 64 MiB), and the job gets it silently.
func applyDefaults(r *jobs.Role, d *siteconfig.DefaultsConfig) hcl.Diagnostics {
	res := &r.Resources
	if d != nil {
		if res.CPUMilli == 0 && d.CPUMilli > 0 {
			res.CPUMilli = d.CPUMilli
		}
		if res.MemoryMiB == 0 && d.MemoryMiB > 0 {
			res.MemoryMiB = d.MemoryMiB
		}
		if res.ShmMiB == 0 && d.ShmMiB > 0 {
			res.ShmMiB = d.ShmMiB // ShmSet stays as the user wrote it (PAI_RESOURCE)
		}
	}
	var missing []string
	if res.CPUMilli == 0 {
		missing = append(missing, "CPU")
	}
	if res.MemoryMiB == 0 {
		missing = append(missing, "memory")
	}
	if len(missing) == 0 {
		return nil
	}
	pos := res.Pos
	if pos.Line == 0 {
		pos = r.Pos
	}
	what := strings.Join(missing, " and ")
	return hcl.Diagnostics{jobs.Warnf(pos, "No "+what+" requested",
		"Role %s asks for no %s, so the target's own default applies (Nomad: 100 MHz CPU and 300 MB memory; Slurm: 1 CPU and 1024 MiB per task). "+
			"Add resources to the job, or give the site a default in jobshift.hcl:\n"+
			"  defaults {\n    cpu        = 1\n    memory_mib = 4096\n    shm_mib    = 1024\n  }", r.Name, what)}
}
