package nomad_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
)

// siteSecretJob names a Secret its file does not hold: the site keeps it.
const siteSecretJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: %s
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
            command: [sh, -c, 'test "$(cat /var/run/store/key)" = "$STORE_KEY" && echo "key from the site: $(printf %%s "$STORE_KEY" | wc -c) bytes"']
            env:
            - name: STORE_KEY
              valueFrom:
                secretKeyRef: {name: store, key: key}
            volumeMounts:
            - {name: store, mountPath: /var/run/store, readOnly: true}
          volumes:
          - name: store
            secret: {secretName: store}
`

// TestSiteSecretsNomadVariable: the site keeps each user's Secrets as
// Nomad Variables (secrets { nomad_variable = "jobshift-ci/secrets/${user}" });
// the jobshift binary reads the user's, and the job's variable and Secret
// file get the value, which is in no job version and no log. Another
// user's run finds no such Secret and is refused, located.
func TestSiteSecretsNomadVariable(t *testing.T) {
	c := agent.Client(t)
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	n := time.Now().UnixNano() % 1e9
	alice, bob := fmt.Sprintf("alice%d", n), fmt.Sprintf("bob%d", n)
	key := fmt.Sprintf("site-key-%d", n)
	path := "jobshift-ci/secrets/" + alice + "/store"
	if _, _, err := c.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"key": key}}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Variables().Delete(path, nil) })
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	if err := os.WriteFile(site, []byte("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n}\nsecrets { nomad_variable = \"jobshift-ci/secrets/${user}\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("site-secret-%d", n)
	job := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, []byte(fmt.Sprintf(siteSecretJob, id)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := jobshift(t, "run", "-to", "nomad", "-plain", "-config", site, "-user", alice, job)
	if code != 0 || !strings.Contains(out, "succeeded") {
		t.Fatalf("run as %s: exit %d\n%s", alice, code, out)
	}
	logs, code := jobshift(t, "logs", "-config", site, submittedHandle(t, out), "master-0")
	if code != 0 || !strings.Contains(logs, fmt.Sprintf("key from the site: %d bytes", len(key))) {
		t.Errorf("logs: exit %d, want the key's length\n%s", code, logs)
	}
	if strings.Contains(out+logs, key) {
		t.Errorf("run's output or the task's log holds the Secret's value:\n%s%s", out, logs)
	}
	jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(jobs, func(j *api.JobListStub) bool { return strings.Contains(j.ID, id) })
	if i < 0 {
		t.Fatalf("no job named like %s", id)
	}
	versions, _, _, err := c.Jobs().Versions(jobs[i].ID, false, &api.QueryOptions{Namespace: jobs[i].Namespace})
	if err != nil || len(versions) == 0 {
		t.Fatalf("job versions: %v", err)
	}
	for _, v := range versions {
		if b, _ := json.Marshal(v); strings.Contains(string(b), key) {
			t.Errorf("job version %d holds the Secret's value", *v.Version)
		}
	}
	out, code = jobshift(t, "validate", "-to", "nomad", "-config", site, "-user", bob, job)
	if code == 0 || !strings.Contains(out, "job.yaml:") || !strings.Contains(out, "store") {
		t.Errorf("validate as %s (no Variable): exit %d, want a located error naming the Secret\n%s", bob, code, out)
	}
}
