package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/testcorpus"
)

// A Kubernetes Secret's value (and its base64 form) appears in no artifact,
// diagnostic or explanation, on every target: the targets that cannot yet
// deliver it refuse without quoting it.
func TestKubernetesSecretInNoArtifact(t *testing.T) {
	isolate(t)
	for file, secret := range map[string][]string{
		"../../examples/pytorchjob-init-secret.yaml":     {"hub-0f8e7d6c5b4a", "aHViLTBmOGU3ZDZjNWI0YQ=="},
		"../../examples/pytorchjob-configmap-entry.yaml": {"dataset-key-7c1e", "ZGF0YXNldC1rZXktN2MxZQ=="},
		// a Secret volume: Slurm delivers its file through the secrets file
		"../../drivers/slurm/testdata/files-volumes.yaml": {"store-key-9d2a4b", "c3RvcmUta2V5LTlkMmE0Yg=="},
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

// Corpus jobs that name Secrets and ConfigMaps created outside the job file
// validate once the user passes them (examples/secrets), and not before.
func TestCorpusWithKubernetesSecrets(t *testing.T) {
	isolate(t)
	dir := testcorpus.Dir(t)
	for job, secrets := range map[string]string{
		"pytorchjob/Lucas-SJY-train_llm_with_nrp__k8s-pytorchjob.yaml":                    "sft-env.yaml",
		"pytorchjob/deinal-kubeflow-v1beta1__pytorchjob.yaml":                             "s3-krb.yaml",
		"pytorchjob/kubeflow-pytorch-operator__examples-pytorchjob.yaml":                  "dist-train.yaml",
		"tfjob/kubeflow-examples__financial_time_series-tensorflow_model-GPU-tfjob3.yaml": "user-gcp-sa.yaml",
	} {
		path := filepath.Join(dir, job)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", job, err)
			continue
		}
		if out, code := runCLI(t, []string{"validate", path}, ""); code == 0 {
			t.Errorf("%s validates without its Secrets and ConfigMaps:\n%s", job, out)
		}
		if out, code := runCLI(t, []string{"validate", "-secrets", filepath.Join("..", "..", "examples", "secrets", secrets), path}, ""); code != 0 {
			t.Errorf("%s with -secrets %s: exit %d\n%s", job, secrets, code, out)
		}
	}
}

// convert -to slurm of a job with a Secret volume succeeds, and the value
// is only in the 0600 secrets file it writes with -o, never in the batch
// script, the library or the command's output.
func TestSlurmSecretVolumeConverted(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	out, code := runCLI(t, []string{"convert", "-to", "slurm", "-o", dir, "../../drivers/slurm/testdata/files-volumes.yaml"}, "")
	if code != 0 {
		t.Fatalf("convert failed:\n%s", out)
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != 3 {
		t.Fatalf("convert -o wrote %v (%v), want the script, the library and the secrets file", ents, err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(b), "store-key-9d2a4b")
		if secrets := strings.HasSuffix(e.Name(), ".secrets"); has != secrets || strings.Contains(string(b), "c3RvcmUta2V5LTlkMmE0Yg==") {
			t.Errorf("%s: holds the secret: %v (want it only in the secrets file)", e.Name(), has)
		}
	}
}

// The site's secrets directory (secrets { dir = ".../${user}" }) stands
// in for -secrets: a corpus job naming a Secret created outside its file
// validates for the user whose directory holds it, not for another user,
// and not once the user's directory holds a file of another kind.
func TestSiteSecretsDir(t *testing.T) {
	isolate(t)
	job := filepath.Join(testcorpus.Dir(t), "pytorchjob", "Lucas-SJY-train_llm_with_nrp__k8s-pytorchjob.yaml")
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "secrets", "sft-env.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tester"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tester", "sft-env.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site.hcl")
	if err := os.WriteFile(site, []byte(`secrets { dir = "`+dir+`/${user}" }`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI(t, []string{"validate", "-config", site, job}, ""); code != 0 {
		t.Errorf("tester, whose directory holds the Secret: exit %d\n%s", code, out)
	}
	if out, code := runCLI(t, []string{"validate", "-config", site, "-user", "bob", job}, ""); code == 0 {
		t.Errorf("bob, whose directory does not exist, validates:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(dir, "tester", "z.yaml"), []byte("token: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI(t, []string{"validate", "-config", site, job}, ""); code == 0 || !strings.Contains(out, "holds no Secret or ConfigMap") {
		t.Errorf("a file of another kind: exit %d\n%s", code, out)
	}
}
