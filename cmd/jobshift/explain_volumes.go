package main

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// explainVolumes says, per role, where each volume comes from: a site
// volume rule (its path for this user, or its Nomad volume), the host path
// as written, per-task scratch, or nothing yet (with the rule that would
// provide it).
func explainVolumes(w io.Writer, plan *translate.Plan) {
	header := false
	for _, r := range plan.Job.Roles {
		for _, v := range r.Volumes {
			if !header {
				fmt.Fprintln(w, "\nVolumes:")
				header = true
			}
			fmt.Fprintf(w, "  %s: %s (%s) at %s: %s\n", r.Name, v.Name, v.Kind, v.MountPath, volumeOrigin(plan.Site, plan.User, v))
		}
	}
}

func volumeOrigin(site *siteconfig.Config, user string, v jobs.Volume) string {
	if rule := site.Volume(v.Source, v.Name); rule != nil {
		from := fmt.Sprintf("site rule volume %q (%s:%d)", rule.Pattern, rule.Range.Filename, rule.Range.Start.Line)
		switch {
		case rule.Path != "":
			p, err := rule.HostPath(user)
			if err != nil {
				return from + ": " + err.Error()
			}
			return fmt.Sprintf("%s, %s on the nodes (Nomad: %s)", from, p, nomadVolume(rule))
		default:
			return fmt.Sprintf("%s: %s", from, nomadVolume(rule))
		}
	}
	switch {
	case v.Kind == "hostPath":
		return "the host path " + v.Source + " as written"
	case v.Kind == "emptyDir" && v.Source == "Memory" && v.SizeMiB > 0:
		return fmt.Sprintf("per-task scratch writable by every user, a tmpfs of %d MiB (sizeLimit)", v.SizeMiB)
	case v.Kind == "emptyDir" && v.Source == "Memory":
		return "per-task scratch writable by every user, a tmpfs"
	case v.Kind == "emptyDir":
		return "per-task scratch writable by every user (0777, as the kubelet makes it)"
	}
	return fmt.Sprintf("no site rule: not provided (add volume %q { path = \"/shared/...\" } to the site config)", v.Name)
}

func nomadVolume(r *siteconfig.VolumeRule) string {
	switch {
	case r.NomadHostVolume != "":
		return "host volume " + r.NomadHostVolume
	case r.NomadCSIVolume != "":
		return fmt.Sprintf("CSI volume %s (%s, %s)", r.NomadCSIVolume, r.AccessMode, r.AttachmentMode)
	}
	return "the path, as a driver volume (docker, podman) or a task-namespace bind (raw_exec, exec)"
}

// unmappedVolumes warns, for validate -to, at every volume no site rule
// maps and the target cannot provide as written (hostPath and emptyDir
// it can), naming the rule that would.
func unmappedVolumes(plan *translate.Plan) hcl.Diagnostics {
	var out hcl.Diagnostics
	seen := map[string]bool{}
	for _, r := range plan.Job.Roles {
		for _, v := range r.Volumes {
			if v.Kind == "hostPath" || v.Kind == "emptyDir" || plan.Site.Volume(v.Source, v.Name) != nil || seen[v.Name] {
				continue
			}
			seen[v.Name] = true
			out = append(out, jobs.Warnf(v.Pos, "Volume without a site rule",
				"Volume %q (%s) at %s has no site rule, so tasks will not see it; map it in the site config: volume %q { path = \"/shared/...\" } (a directory every node mounts; ${user} is the submitting user), or nomad_host_volume / nomad_csi_volume for Nomad.",
				v.Name, v.Kind, v.MountPath, v.Name))
		}
	}
	return out
}
