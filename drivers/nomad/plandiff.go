package nomad

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/translate"
)

// PlanDiff implements drivers.Planner: Nomad's dry run of the job (what
// `nomad job plan` shows): the diff against the registered job of the
// same ID, the allocations the scheduler would place, and the groups it
// could not place, after the job's shape. Nothing is registered. The job
// is the one Submit would register for the same plan (its OptWatched).
func (d *Driver) PlanDiff(ctx context.Context, p *translate.Plan) (string, error) {
	job, shape, c, _, err := d.buildOnCluster(ctx, p)
	if err != nil {
		return "", err
	}
	resp, _, err := c.Jobs().PlanOpts(job, &api.PlanOptions{Diff: true}, (&api.WriteOptions{}).WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("planning job %s: %w", *job.ID, unavailable(err))
	}
	var b strings.Builder
	b.WriteString("The job's " + shape.String() + "\n")
	writeJobDiff(&b, resp.Diff)
	if a := resp.Annotations; a != nil {
		b.WriteString("\nScheduler dry-run:\n")
		for _, g := range sortedKeys(a.DesiredTGUpdates) {
			u := a.DesiredTGUpdates[g]
			fmt.Fprintf(&b, "- group %q: place %d, update in place %d, destructive update %d, stop %d, ignore %d\n",
				g, u.Place, u.InPlaceUpdate, u.DestructiveUpdate, u.Stop, u.Ignore)
		}
	}
	if len(resp.FailedTGAllocs) > 0 {
		fmt.Fprintf(&b, "- WARNING: %s\n", placementReport(resp.FailedTGAllocs))
	} else {
		b.WriteString("- All tasks successfully allocated.\n")
	}
	if resp.Warnings != "" {
		fmt.Fprintf(&b, "\nWarnings from Nomad:\n%s\n", strings.TrimSpace(resp.Warnings))
	}
	if resp.JobModifyIndex == 0 {
		fmt.Fprintf(&b, "\nNew job %s: a submit registers it only while no job of this ID exists.\n", *job.ID)
	} else {
		fmt.Fprintf(&b, "\nJob modify index: %d (a submit replaces the job only once it has ended, and only while the index is unchanged; -force replaces it anyway)\n", resp.JobModifyIndex)
	}
	return b.String(), nil
}

// diffMark is the prefix `nomad job plan` uses for a diff type.
func diffMark(t string) string {
	switch t {
	case "Added":
		return "+"
	case "Deleted":
		return "-"
	case "Edited":
		return "+/-"
	}
	return " "
}

// writeJobDiff prints the diff as `nomad job plan` does (its marks and
// nesting, not its colours); unchanged fields are left out.
func writeJobDiff(w io.Writer, d *api.JobDiff) {
	if d == nil {
		fmt.Fprintln(w, "(no diff)")
		return
	}
	fmt.Fprintf(w, "%s Job: %q\n", diffMark(d.Type), d.ID)
	writeFields(w, d.Fields, 1)
	writeObjects(w, d.Objects, 1)
	for _, g := range d.TaskGroups {
		counts := ""
		if len(g.Updates) > 0 {
			var parts []string
			for _, k := range sortedKeys(g.Updates) {
				parts = append(parts, fmt.Sprintf("%d %s", g.Updates[k], k))
			}
			counts = " (" + strings.Join(parts, ", ") + ")"
		}
		fmt.Fprintf(w, "%s Task Group: %q%s\n", diffMark(g.Type), g.Name, counts)
		writeFields(w, g.Fields, 1)
		writeObjects(w, g.Objects, 1)
		for _, t := range g.Tasks {
			ann := ""
			if len(t.Annotations) > 0 {
				ann = " (" + strings.Join(t.Annotations, ", ") + ")"
			}
			fmt.Fprintf(w, "  %s Task: %q%s\n", diffMark(t.Type), t.Name, ann)
			writeFields(w, t.Fields, 2)
			writeObjects(w, t.Objects, 2)
		}
	}
}

func writeFields(w io.Writer, fs []*api.FieldDiff, depth int) {
	fs = append([]*api.FieldDiff(nil), fs...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	ind := strings.Repeat("  ", depth)
	for _, f := range fs {
		switch f.Type {
		case "Added":
			fmt.Fprintf(w, "%s+ %s: %q\n", ind, f.Name, f.New)
		case "Deleted":
			fmt.Fprintf(w, "%s- %s: %q\n", ind, f.Name, f.Old)
		case "Edited":
			fmt.Fprintf(w, "%s+/- %s: %q => %q\n", ind, f.Name, f.Old, f.New)
		}
	}
}

func writeObjects(w io.Writer, os []*api.ObjectDiff, depth int) {
	ind := strings.Repeat("  ", depth)
	for _, o := range os {
		if o.Type == "None" {
			continue
		}
		fmt.Fprintf(w, "%s%s %s {\n", ind, diffMark(o.Type), o.Name)
		writeFields(w, o.Fields, depth+1)
		writeObjects(w, o.Objects, depth+1)
		fmt.Fprintf(w, "%s}\n", ind)
	}
}
