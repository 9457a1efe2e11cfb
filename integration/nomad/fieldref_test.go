package nomad_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// TestFieldRefOnNomad: env valueFrom.fieldRef metadata.name is each
// task's Volcano pod name (<job>-<task>-<i>, MakePodName
// @v1.16.0-alpha.1), status.podIP(s) its address, metadata.namespace the
// job's and the template's label and annotation their values, through the
// env template.
func TestFieldRefOnNomad(t *testing.T) {
	dir := runsDir(t)
	p := loadPlan(t, filepath.Join(agent.Repo(), "integration", "testdata", "volcano-fieldref.yaml"), site())
	for _, r := range p.Job.Roles {
		r.Env = append(r.Env, jobs.EnvVar{Name: "VC_RUNS", Value: dir})
	}
	res, _, _ := runStates(t, p)
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", res)
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
