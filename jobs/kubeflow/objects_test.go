package kubeflow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// secretValue must appear nowhere but in the task's environment and files.
const secretValue = "hf_s3cr3t-t0ken"

// objectsJob is a PyTorchJob as users write it with its ConfigMap and
// Secret in the same file (after the job: the order does not matter).
const objectsJob = `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: cm
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
            command: [sh, /etc/entry/run.sh]
            envFrom:
            - configMapRef: {name: settings}
              prefix: CFG_
            env:
            - name: CFG_epochs
              value: "7"
            - name: HF_TOKEN
              valueFrom:
                secretKeyRef: {name: creds, key: token}
            - name: MODE
              valueFrom:
                configMapKeyRef: {name: settings, key: mode}
            - name: AUTH
              value: Bearer $(HF_TOKEN)
            - name: ABSENT
              valueFrom:
                secretKeyRef: {name: creds, key: nope, optional: true}
            volumeMounts:
            - {name: entry, mountPath: /etc/entry}
            - {name: keys, mountPath: /var/keys, readOnly: true}
            - {name: one, mountPath: /etc/app.conf, subPath: app.conf}
          volumes:
          - name: entry
            configMap:
              name: entry
              defaultMode: 0755
          - name: keys
            secret:
              secretName: creds
              items:
              - {key: token, path: hf/token, mode: 0400}
          - name: one
            configMap: {name: entry}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: entry}
data:
  run.sh: |
    echo run
  app.conf: "x=1"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data:
  epochs: "3"
  mode: fast
  1bad: "1"
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
data:
  token: aWdub3JlZA==
stringData:
  token: ` + secretValue + `
`

func TestObjectsResolve(t *testing.T) {
	job, diags := Read([]byte(objectsJob), jobs.ReadOptions{Path: "cm.yaml"})
	if diags.HasErrors() {
		t.Fatalf("diags: %v", diags)
	}
	r := job.Roles[0]
	type ev struct {
		Name, Value string
		Secret      bool
	}
	var env []ev
	for _, e := range r.Env {
		env = append(env, ev{e.Name, e.Value, e.Secret})
	}
	// kubelet order: envFrom first (sorted keys, prefix: CFG_1bad is a
	// name), env after, a later entry replacing an earlier one; the
	// optional missing key gives no variable; a value built from a secret
	// is secret.
	want := []ev{
		{"CFG_1bad", "1", false},
		{"CFG_mode", "fast", false},
		{"CFG_epochs", "7", false},
		{"HF_TOKEN", secretValue, true},
		{"MODE", "fast", false},
		{"AUTH", "Bearer " + secretValue, true},
	}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	wantFiles := []jobs.File{
		{Path: "/etc/entry/app.conf", Content: "x=1", Mode: 0o755},
		{Path: "/etc/entry/run.sh", Content: "echo run\n", Mode: 0o755},
		{Path: "/var/keys/hf/token", Content: secretValue, Mode: 0o400, Secret: true},
		{Path: "/etc/app.conf", Content: "x=1", Mode: 0o644},
	}
	for i := range r.Files {
		r.Files[i].Pos = jobs.Pos{}
	}
	if diff := cmp.Diff(wantFiles, r.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(job)
	if strings.Contains(string(b), secretValue) {
		t.Errorf("the job's JSON holds the secret: %s", b)
	}
	for _, d := range diags {
		if strings.Contains(d.Detail, secretValue) {
			t.Errorf("a diagnostic holds the secret: %s", d.Detail)
		}
	}
}

func TestObjectsErrors(t *testing.T) {
	cases := map[string]struct{ edit, want string }{
		"missing key": {`secretKeyRef: {name: creds, key: token}`, ""},
		"wrong key":   {`secretKeyRef: {name: creds, key: tokn}`, `cm.yaml:24:50: error: Key not found`},
		"no secret":   {`secretKeyRef: {name: other, key: token}`, `cm.yaml:23:15: error: Secret not found`},
		"secret in args": {"            command: [sh, /etc/entry/run.sh]",
			`Secret in the command line`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			src := strings.Replace(objectsJob, `secretKeyRef: {name: creds, key: token}`, c.edit, 1)
			if name == "secret in args" {
				src = strings.Replace(objectsJob, c.edit, "            command: [sh, -c, 'echo $(HF_TOKEN)']", 1)
			}
			_, diags := Read([]byte(src), jobs.ReadOptions{Path: "cm.yaml"})
			got := formatDiags(diags)
			if strings.Contains(got, secretValue) {
				t.Fatalf("diagnostics hold the secret:\n%s", got)
			}
			if c.want == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors:\n%s", got)
				}
				return
			}
			if !diags.HasErrors() || !strings.Contains(got, c.want) {
				t.Fatalf("want %q in:\n%s", c.want, got)
			}
		})
	}
}

// A -secrets file of Kubernetes objects serves the job like documents in
// its file.
func TestObjectsFromSecretsFile(t *testing.T) {
	src := objectsJob[:strings.Index(objectsJob, "---\napiVersion: v1\nkind: Secret")]
	opts := jobs.ReadOptions{Path: "cm.yaml", Secrets: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "creds"}, "stringData": map[string]any{"token": secretValue}}}
	job, diags := Read([]byte(src), opts)
	if diags.HasErrors() {
		t.Fatalf("diags: %v", diags)
	}
	if e, ok := job.Roles[0].SecretEnv(); !ok || e.Value != secretValue {
		t.Fatalf("secret env = %+v %v", e, ok)
	}
	if strings.Contains(formatDiags(diags), "-secrets has no effect") {
		t.Error("a -secrets file of Kubernetes objects is read, not ignored")
	}
}

// TestObjectKeysRefused: a Secret's key that would name a file outside
// its volume's mount path (.., a slash) or hold a newline is refused at
// the key, whose value is never shown; Kubernetes refuses such keys too.
func TestObjectKeysRefused(t *testing.T) {
	for _, key := range []string{`"../../etc/cron.d/x"`, `"a/b"`, `"a\nb"`, `".."`, `"..data"`} {
		src := strings.Replace(objectsJob, "stringData:\n  token: ", "stringData:\n  "+key+": "+secretValue+"\n  token: ", 1)
		_, diags := Read([]byte(src), jobs.ReadOptions{Path: "cm.yaml"})
		got := formatDiags(diags)
		if !diags.HasErrors() || !strings.Contains(got, "cm.yaml:73:3: error: Invalid Secret key") {
			t.Errorf("key %s: want an error at cm.yaml:73:3 in:\n%s", key, got)
		}
		if strings.Contains(got, secretValue) {
			t.Errorf("key %s: the diagnostics hold the value:\n%s", key, got)
		}
	}
}

// TestEnvFromSkipsInvalidNames: without a prefix, an envFrom key that is
// no variable name (1bad: a valid ConfigMap key) is skipped, as the
// kubelet skipped it; the others are set.
func TestEnvFromSkipsInvalidNames(t *testing.T) {
	src := strings.Replace(objectsJob, "              prefix: CFG_\n", "", 1)
	job, diags := Read([]byte(src), jobs.ReadOptions{Path: "cm.yaml"})
	if diags.HasErrors() {
		t.Fatal(formatDiags(diags))
	}
	var names []string
	for _, e := range job.Roles[0].Env {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); strings.Contains(got, "1bad") || !strings.Contains(got, "mode") {
		t.Errorf("env names %q: want mode and epochs, not 1bad", got)
	}
}
