package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A job naming no Secret of the site: its pods read nothing from outside
// the file.
const lazyPlainJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: plain
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: [python, -c, "print('hi')"]
`

// A job whose container takes a credential from a Secret created outside
// its file, as a cluster's users create them with kubectl.
const lazySecretJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: creds
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
          - name: pytorch
            image: python:3.11
            command: [python, train.py]
            env:
            - name: AWS_SECRET_ACCESS_KEY
              valueFrom:
                secretKeyRef: {name: s3-creds, key: secret}
`

// TestSiteSecretsNomadLazy: with secrets { nomad_variable = ... } and no
// Nomad to reach, a job naming no Secret converts, validates and explains
// for every target; a job naming one is refused at its reference, the
// error naming the site's rule and the address asked.
func TestSiteSecretsNomadLazy(t *testing.T) {
	isolate(t)
	t.Setenv("NOMAD_ADDR", "http://127.0.0.1:1") // nothing listens there
	t.Setenv("NOMAD_TOKEN", "")
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("jobshift.hcl", "secrets { nomad_variable = \"jobshift/secrets/${user}\" }\n")
	plain, creds := write("plain.yaml", lazyPlainJob), write("creds.yaml", lazySecretJob)
	for _, args := range [][]string{
		{"validate", "-config", site, plain},
		{"validate", "-to", "nomad", "-config", site, plain},
		{"convert", "-to", "nomad", "-config", site, plain},
		{"convert", "-to", "slurm", "-config", site, plain},
		{"convert", "-to", "local", "-config", site, plain},
		{"explain", "-config", site, plain},
	} {
		if out, code := runCLI(t, args, ""); code != 0 {
			t.Errorf("a job naming no Secret needs Nomad: exit %d\n%s", code, out)
		}
	}
	out, code := runCLI(t, []string{"validate", "-to", "slurm", "-config", site, creds}, "")
	for _, want := range []string{"creds.yaml:18:15", `"s3-creds"`, `nomad_variable = "jobshift/secrets/${user}"`, "jobshift.hcl:1", "127.0.0.1:1", "jobshift/secrets/tester/s3-creds"} {
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("a job naming a Secret with Nomad down: exit %d, want %q in\n%s", code, want, out)
		}
	}
}
