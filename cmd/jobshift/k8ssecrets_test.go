package main

import (
	"strings"
	"testing"
)

// A Kubernetes Secret's value (and its base64 form) appears in no artifact,
// diagnostic or explanation, on every target: the targets that cannot yet
// deliver it refuse without quoting it.
func TestKubernetesSecretInNoArtifact(t *testing.T) {
	isolate(t)
	for file, secret := range map[string][]string{
		"../../examples/pytorchjob-init-secret.yaml":     {"hub-0f8e7d6c5b4a", "aHViLTBmOGU3ZDZjNWI0YQ=="},
		"../../examples/pytorchjob-configmap-entry.yaml": {"dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ=="},
	} {
		for _, args := range [][]string{
			{"convert", "-to", "nomad"}, {"convert", "-to", "nomad-json"}, {"convert", "-to", "slurm"}, {"convert", "-to", "local"},
			{"explain", "-format", "json"}, {"explain"}, {"validate", "-json"},
		} {
			out, _ := runCLI(t, append(args, file), "")
			for _, s := range secret {
				if strings.Contains(out, s) {
					t.Errorf("jobshift %s %s shows the secret %q:\n%s", strings.Join(args, " "), file, s, out)
				}
			}
		}
	}
}
