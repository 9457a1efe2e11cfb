package trainer

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// trainer.env reads the Secret of the same file; the value is secret and
// no diagnostic shows it.
func TestTrainerEnvFromSecret(t *testing.T) {
	src := strings.Replace(torchJob, "      - name: FOO\n        value: bar\n",
		"      - name: FOO\n        value: bar\n      - name: HF_TOKEN\n        valueFrom:\n          secretKeyRef: {name: hf, key: token}\n", 1) +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: hf}\nstringData: {token: tj-s3cr3t}\n"
	job, diags := Read([]byte(src), jobs.ReadOptions{Path: "tj.yaml"})
	if diags.HasErrors() {
		t.Fatalf("diags: %v", diags)
	}
	found := false
	for _, r := range job.Roles {
		if e, ok := r.SecretEnv(); ok && e.Name == "HF_TOKEN" && e.Value == "tj-s3cr3t" {
			found = true
		}
	}
	if !found {
		t.Errorf("no role has HF_TOKEN from the Secret")
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, "tj-s3cr3t") || d.Summary == "Ignored document" {
			t.Errorf("diagnostic %s: %s", d.Summary, d.Detail)
		}
	}
}
