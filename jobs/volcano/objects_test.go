package volcano

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// A Volcano Job's pods read the ConfigMaps and Secrets of the same file
// (or of a -secrets file), as a Kubeflow job's do.
func TestObjectsInFile(t *testing.T) {
	src := `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: cm
spec:
  minAvailable: 1
  tasks:
    - replicas: 1
      name: main
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: main
              image: busybox
              command: [sh, /opt/run/start.sh]
              env:
                - name: TOKEN
                  valueFrom:
                    secretKeyRef: {name: creds, key: token}
              volumeMounts:
                - {name: run, mountPath: /opt/run}
          volumes:
            - name: run
              configMap: {name: scripts, defaultMode: 0755}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: scripts}
data:
  start.sh: echo start
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {token: vc-s3cr3t}
`
	job, diags := Read([]byte(src), jobs.ReadOptions{Path: "vc.yaml"})
	if diags.HasErrors() {
		t.Fatalf("diags: %v", diags)
	}
	r := job.Roles[0]
	if e, ok := r.SecretEnv(); !ok || e.Name != "TOKEN" || e.Value != "vc-s3cr3t" {
		t.Errorf("secret env = %+v %v", e, ok)
	}
	if len(r.Files) != 1 || r.Files[0].Path != "/opt/run/start.sh" || r.Files[0].Content != "echo start" || r.Files[0].Mode != 0o755 {
		t.Errorf("files = %+v", r.Files)
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, "vc-s3cr3t") || d.Summary == "Ignored document" {
			t.Errorf("diagnostic %s: %s", d.Summary, d.Detail)
		}
	}
}
