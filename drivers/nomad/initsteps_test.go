package nomad

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/jobs"
)

// checkInitTask: the shape's init task is a prestart task that ends
// (not a sidecar), on the group's driver, before the main task, and runs
// what the role's init containers run: on a host driver the script of
// every step under the task view, in a container the step's own image and
// command.
func checkInitTask(t *testing.T, name string, task *api.Task, gs *GroupShape) {
	t.Helper()
	if task.Lifecycle == nil || task.Lifecycle.Hook != "prestart" || task.Lifecycle.Sidecar || task.Driver != gs.Driver {
		t.Errorf("%s: init task %+v on %s", name, task.Lifecycle, task.Driver)
	}
	// the shape table's jobs' first init step: its command's words
	step, words := "mkdir -p /tmp/jobshift-example-init", " /bin/sh -c mkdir -p /tmp/jobshift-example-init "
	if strings.HasPrefix(name, "pytorchjob init+memory emptyDir") {
		step, words = "seq 1 300 > /fast/train.txt", " sh -c seq 1 300 > /fast/train.txt"
	}
	if gs.Traits.Container {
		if task.Config["image"] != "busybox:1.36" || !strings.Contains(commandLine(task), words) {
			t.Errorf("%s: init task config %v", name, task.Config)
		}
		return
	}
	if len(task.Templates) == 0 || !strings.Contains(templateText(t, task.Templates[0]), step) {
		t.Errorf("%s: init task templates %v", name, task.Templates)
	}
	// the script runs under the pod's view, as the main task does
	argv := append([]string{task.Config["command"].(string)}, task.Config["args"].([]string)...)
	want := []string{"sh", "${NOMAD_TASK_DIR}/jobshift-taskns.sh", "${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "${NOMAD_TASK_DIR}/jobshift-init.sh"}
	if strings.Join(argv, " ") != strings.Join(want, " ") {
		t.Errorf("%s: init task argv %q, want %q", name, argv, want)
	}
}

// checkSecretEnv: a main task of the example whose HUB_TOKEN comes from a
// Secret reads it from the job's Variable through a 0600 env template in
// secrets/, and its env block does not name it.
func checkSecretEnv(t *testing.T, name string, task *api.Task) {
	t.Helper()
	if !strings.HasPrefix(name, "pytorchjob init+secret") {
		return
	}
	if _, ok := task.Env["HUB_TOKEN"]; ok {
		t.Errorf("%s: HUB_TOKEN in the env block", name)
	}
	for _, tm := range task.Templates {
		if *tm.DestPath == SecretEnvFile {
			if !*tm.Envvars || *tm.Perms != "0600" || !strings.Contains(*tm.EmbeddedTmpl, `HUB_TOKEN={{ with nomadVar "nomad/jobs/`) {
				t.Errorf("%s: secret template %+v %s", name, tm, *tm.EmbeddedTmpl)
			}
			return
		}
	}
	t.Errorf("%s: no %s template", name, SecretEnvFile)
}

// templateText decodes a fileTemplate's content ({{ base64Decode "..." }}).
func templateText(t *testing.T, tm *api.Template) string {
	t.Helper()
	s := strings.TrimSuffix(strings.TrimPrefix(*tm.EmbeddedTmpl, `{{ base64Decode "`), `" }}`)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("template %q: %v", *tm.EmbeddedTmpl, err)
	}
	return string(b)
}

// TestInitScriptRuns runs the host drivers' init script with sh (dash when
// installed): the steps run in order, each with its own variables and
// working directory, a value any byte of which the shell must not touch
// arrives whole, and the first failing step ends the script with its exit
// code and name, the later ones not run. The expected order and values
// are the job's, as the kubelet ran init containers (one after the other,
// each to success: kubernetes/website init-containers.md).
func TestInitScriptRuns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	odd := `it's $HOME "q" \n ${X} ` + "`id`"
	role := &jobs.Role{Name: "worker", Init: []jobs.InitStep{
		{Name: "one", Command: jobs.Command{Command: []string{"/bin/sh", "-c"}, Args: []string{`printf '%s|%s\n' "$STEP" "$ODD" >> ` + out}},
			Env: []jobs.EnvVar{{Name: "STEP", Value: "one"}, {Name: "ODD", Value: odd}}},
		{Name: "two", WorkingDir: dir, Command: jobs.Command{Command: []string{"/bin/sh", "-c", `pwd >> out; exit 7`}}},
		{Name: "three", Command: jobs.Command{Command: []string{"/bin/sh", "-c", "echo three >> " + out}}},
	}}
	script := filepath.Join(dir, "init.sh")
	if err := os.WriteFile(script, []byte(initScript(role)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{"sh", "dash", "bash"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		os.Remove(out)
		cmd := exec.Command(sh, script)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 7 {
			t.Fatalf("%s: exit %v, want 7; stderr %s", sh, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "jobshift: init container two failed with exit code 7") {
			t.Errorf("%s: stderr %q", sh, stderr.String())
		}
		got, _ := os.ReadFile(out)
		if want := "one|" + odd + "\n" + dir + "\n"; string(got) != want {
			t.Errorf("%s: steps wrote %q, want %q", sh, got, want)
		}
	}
}
