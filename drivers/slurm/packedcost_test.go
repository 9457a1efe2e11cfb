package slurm

import (
	"strings"
	"testing"
)

// The LeinaoPAI job: 2 ps of 2 CPUs and 8 GiB, 2 workers of 2 CPUs,
// 16 GiB and 2 GPUs need 8 CPUs, 48 GiB and 4 GPUs; one task per node
// forces the packed layout, whose slots are the largest role's (2 CPUs,
// 16 GiB, 2 GPUs), so Slurm is asked for 8 CPUs, 64 GiB and 8 GPUs. The
// figures are worked out here from the roles, not taken from the output.
func TestPackedOverRequestWarns(t *testing.T) {
	sc := renderCase(t, "leinao-host")
	var got string
	for _, w := range sc.Warnings {
		if w.Summary == "Packed layout over-requests" {
			got = w.Detail
			if w.Subject == nil || w.Subject.Start.Line == 0 && w.Subject.Filename == "" {
				t.Errorf("warning has no position")
			}
		}
	}
	for _, want := range []string{"(2 CPUs, 16 GiB, 2 GPUs per task)", "asks Slurm for 8 CPUs, 64 GiB, 8 GPUs",
		"roles need 8 CPUs, 48 GiB, 4 GPUs", "16 GiB, 4 GPUs more", "ps (2 × 2 CPUs, 8 GiB)", "LeinaoPAI", "role rules"} {
		if !strings.Contains(got, want) {
			t.Errorf("warning lacks %q:\n%s", want, got)
		}
	}
}

// Roles of equal size, or the het layout, over-request nothing.
func TestPackedOverRequestQuiet(t *testing.T) {
	for _, name := range []string{"pai-het", "tf-apptainer"} {
		for _, w := range renderCase(t, name).Warnings {
			if w.Summary == "Packed layout over-requests" {
				t.Errorf("%s: %s", name, w.Detail)
			}
		}
	}
}
