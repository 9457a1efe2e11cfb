package translate

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
)

// checkVolumes refuses, at the volume, a volume the job's command visibly
// uses (jobs.Volume.Used: a PVC at /train that the command reads) when no
// site volume rule maps it: the task would start without its data. With
// -lossy (jobs.Job.Lossy) it is a warning. hostPath and emptyDir volumes
// need no rule; nfs volumes are carried as written.
func checkVolumes(job *jobs.Job, cfg *siteconfig.Config) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[jobs.Pos]bool{}
	for _, r := range job.Roles {
		vols := append([]jobs.Volume(nil), r.Volumes...)
		for _, st := range r.Init {
			vols = append(vols, st.Volumes...)
		}
		for _, v := range vols {
			if !v.Used || seen[v.Pos] || cfg.Volume(v.Source, v.Name) != nil {
				continue
			}
			seen[v.Pos] = true
			report := jobs.Errorf
			if job.Lossy {
				report = jobs.Warnf
			}
			diags = append(diags, report(v.Pos, "Volume without a site rule",
				"Role %s uses the volume %q (%s%s) at %s, and no site volume rule maps it, so the task would start without that data. "+
					"Map it in the site config: volume %q { path = \"/shared/...\" } (a directory every node mounts; ${user} is the submitting user), "+
					"or nomad_host_volume / nomad_csi_volume for Nomad; -lossy runs it without.",
				r.Name, v.Name, v.Kind, sourceNote(v), v.MountPath, ruleName(v)))
		}
	}
	return diags
}

func sourceNote(v jobs.Volume) string {
	if v.Source == "" {
		return ""
	}
	return " " + v.Source
}

// ruleName is the name a rule is best written for: the claim (shared by
// every pod that mounts it), else the volume's name.
func ruleName(v jobs.Volume) string {
	if v.Source != "" {
		return v.Source
	}
	return v.Name
}
