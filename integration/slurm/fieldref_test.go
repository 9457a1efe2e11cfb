package slurm_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/translate/completion"
)

// TestFieldRefOnSlurm: env valueFrom.fieldRef metadata.name is each
// task's Volcano pod name (<job>-<task>-<i>, MakePodName
// @v1.16.0-alpha.1), status.podIP(s) an address, metadata.namespace the
// job's and the template's label and annotation their values, in the
// batch job.
func TestFieldRefOnSlurm(t *testing.T) {
	needCluster(t)
	dir, _ := volcanoRuns(t, "")
	r := volcanoSubmit(t, "../../integration/testdata/volcano-fieldref.yaml", dir)
	if r.final.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", r.final)
	}
	for _, pod := range []string{"fr-master-0", "fr-worker-0", "fr-worker-1"} {
		b, err := os.ReadFile(filepath.Join(dir, pod))
		if err != nil {
			t.Errorf("task %s wrote nothing: %v", pod, err)
			continue
		}
		f := strings.Fields(string(b))
		if len(f) != 5 || f[0] != pod || net.ParseIP(f[1]) == nil || f[2] != "research" || f[3] != "vision" || f[4] != "ann" {
			t.Errorf("task %s wrote %q, want %q, its address, research, vision and ann", pod, b, pod)
		}
	}
}
