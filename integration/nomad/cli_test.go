package nomad_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/integration/nomad/agent"
)

const cliTFJob = `apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: %s
spec:
  tfReplicaSpecs:
    Chief:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: tensorflow
              image: python:3.11-slim
              command: ["python3", "-c", "import json,os; print('chief sees', json.loads(os.environ['TF_CONFIG'])['cluster']['ps'])"]
    PS:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: tensorflow
              image: python:3.11-slim
              command: ["sleep", "3600"]
`

func jobshift(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(helper(t), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// TestCLIRunDetachStatusLogsStop drives the jobshift binary: run -to nomad
// to the end, run -detach then watch -enforce (which follows and applies
// the completion rule, as run would), status (a snapshot), logs, and stop,
// each finding the job by the handle run printed.
func TestCLIRunDetachStatusLogsStop(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	if err := os.WriteFile(site, []byte("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string) string {
		f := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(f, []byte(fmt.Sprintf(cliTFJob, name)), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	n := time.Now().UnixNano() % 1e9

	out, code := jobshift(t, "run", "-to", "nomad", "-plain", "-config", site, write(fmt.Sprintf("cli-run-%d", n)))
	if code != 0 || !strings.Contains(out, "succeeded") || !strings.Contains(out, "submitted nomad job nomad:") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}

	id := fmt.Sprintf("cli-detach-%d", n)
	out, code = jobshift(t, "run", "-to", "nomad", "-detach", "-config", site, write(id))
	h := submittedHandle(t, out)
	if code != 0 || !strings.Contains(h, id) {
		t.Fatalf("run -detach: exit %d\n%s", code, out)
	}
	out, code = jobshift(t, "watch", "-enforce", "-config", site, h)
	if code != 0 || !strings.Contains(out, "succeeded") || !strings.Contains(out, "ps-0 stopped") {
		t.Fatalf("watch -enforce: exit %d\n%s", code, out)
	}
	out, code = jobshift(t, "logs", "-config", site, h, "chief-0")
	if code != 0 || !strings.Contains(out, "chief sees [") {
		t.Fatalf("logs: exit %d\n%s", code, out)
	}
	// status: the recorded verdict, at once, not a new judgement.
	if out, code = jobshift(t, "status", "-config", site, h); code != 0 || !strings.Contains(out, "succeeded") {
		t.Fatalf("status (recorded): exit %d\n%s", code, out)
	}

	id2 := fmt.Sprintf("cli-stop-%d", n)
	f := write(id2)
	src, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(src, []byte(`"python3", "-c"`), []byte(`"sleep", "3600", "-c"`), 1), 0o644)
	if out, code = jobshift(t, "run", "-to", "nomad", "-detach", "-config", site, f); code != 0 {
		t.Fatalf("run -detach: %s", out)
	}
	h2 := submittedHandle(t, out)
	if out, code = jobshift(t, "stop", "-config", site, h2); code != 0 {
		t.Fatalf("stop: %s", out)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		out, code = jobshift(t, "status", "-config", site, h2)
		if code != 0 {
			t.Fatalf("status after stop: exit %d\n%s", code, out)
		}
		if stoppedPhase.MatchString(out) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if !stoppedPhase.MatchString(out) {
		t.Fatalf("status after stop:\n%s", out)
	}
}

var stoppedPhase = regexp.MustCompile(`(?m)^phase\s+stopped`)

// submittedHandle is the handle of run's "submitted TARGET job HANDLE".
func submittedHandle(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "submitted" && f[2] == "job" {
			return f[3]
		}
	}
	t.Fatalf("no \"submitted TARGET job HANDLE\" line:\n%s", out)
	return ""
}

// TestCLISharedCluster: two users' jobs of one name side by side on the
// agent (IDs <user>~<job>), a second submit that would replace a running
// job refused (exit 2) unless -force, the plan's diff, and a namespace per
// user from the site config — all through the binary and the handles it
// prints.
func TestCLISharedCluster(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	c := agent.Client(t)
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	if err := os.WriteFile(site, []byte("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("shared-%d", time.Now().UnixNano()%1e9)
	job := filepath.Join(dir, "job.yaml")
	src := strings.Replace(fmt.Sprintf(cliTFJob, name), `"python3", "-c", "import json,os; print('chief sees', json.loads(os.environ['TF_CONFIG'])['cluster']['ps'])"`, `"sleep", "3600"`, 1)
	if err := os.WriteFile(job, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var handles []string
	defer func() {
		for _, h := range handles {
			jobshift(t, "stop", "-config", site, h)
		}
	}()
	submit := func(user string, extra ...string) (string, string, int) {
		args := append([]string{"run", "-to", "nomad", "-detach", "-config", site, "-user", user}, extra...)
		out, code := jobshift(t, append(args, job)...)
		h := ""
		if code == 0 {
			h = submittedHandle(t, out)
			handles = append(handles, h)
		}
		return h, out, code
	}
	ha, out, code := submit("alice")
	if code != 0 || ha != "nomad:alice~"+name {
		t.Fatalf("alice: exit %d, handle %q\n%s", code, ha, out)
	}
	hb, out, code := submit("bob")
	if code != 0 || hb != "nomad:bob~"+name {
		t.Fatalf("bob: exit %d, handle %q\n%s", code, hb, out)
	}
	// Both are there, each with its own user.
	out, code = jobshift(t, "status", "-to", "nomad", "-json", "-config", site)
	var list []struct {
		Handle, User, Name, Phase string
	}
	if err := json.Unmarshal([]byte(out), &list); code != 0 || err != nil {
		t.Fatalf("status list: exit %d, %v\n%s", code, err, out)
	}
	users := map[string]string{}
	for _, s := range list {
		users[s.Handle] = s.User
	}
	if users[ha] != "alice" || users[hb] != "bob" {
		t.Errorf("status list: %v, want %s by alice and %s by bob", users, ha, hb)
	}
	// alice again: her job runs, it is not replaced.
	_, out, code = submit("alice")
	if code != 2 || !strings.Contains(out, "already running") || !strings.Contains(out, "-force") {
		t.Errorf("alice's second submit: exit %d, want 2 (running job kept)\n%s", code, out)
	}
	info, _, err := c.Jobs().Info("alice~"+name, nil)
	if err != nil || *info.Version != 0 {
		t.Errorf("alice's job after the refused submit: version %v, %v (want 0: untouched)", info.Version, err)
	}
	// The plan shows Nomad's diff against her registered job and submits
	// nothing.
	out, code = jobshift(t, "run", "-to", "nomad", "-plan", "-config", site, "-user", "alice", "-var", "x=1", job)
	if code != 0 || !strings.Contains(out, `Job: "alice~`+name+`"`) || !strings.Contains(out, "Task Group") || !strings.Contains(out, "Scheduler dry-run") {
		t.Errorf("run -plan: exit %d\n%s", code, out)
	}
	// -force replaces it (a new version: the chief now sleeps less), as
	// plain `nomad job run` would.
	if err := os.WriteFile(job, []byte(strings.Replace(src, `"sleep", "3600"`, `"sleep", "3599"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, out, code = submit("alice", "-force"); code != 0 {
		t.Errorf("alice -force: exit %d\n%s", code, out)
	}
	if info, _, err := c.Jobs().Info("alice~"+name, nil); err != nil || *info.Version != 1 {
		t.Errorf("alice's job after -force: version %d, %v (want 1)", *info.Version, err)
	}

	// A namespace per user.
	for _, ns := range []string{"carol"} {
		if _, err := c.Namespaces().Register(&api.Namespace{Name: ns}, nil); err != nil {
			t.Fatalf("creating namespace %s: %v", ns, err)
		}
	}
	site2 := filepath.Join(dir, "per-user.hcl")
	os.WriteFile(site2, []byte("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n  namespace_per_user = true\n}\n"), 0o644)
	out, code = jobshift(t, "run", "-to", "nomad", "-detach", "-config", site2, "-user", "carol", job)
	if code != 0 {
		t.Fatalf("carol: exit %d\n%s", code, out)
	}
	hc := submittedHandle(t, out)
	handles = append(handles, hc)
	if hc != "nomad:carol/carol~"+name {
		t.Errorf("carol's handle %q, want nomad:carol/carol~%s", hc, name)
	}
	if _, _, err := c.Jobs().Info("carol~"+name, &api.QueryOptions{Namespace: "carol"}); err != nil {
		t.Errorf("carol's job is not in namespace carol: %v", err)
	}
	out, code = jobshift(t, "status", "-config", site2, hc)
	if code != 0 || !strings.Contains(out, hc) {
		t.Errorf("status %s: exit %d\n%s", hc, code, out)
	}
}

// TestCLIPlacementExit2: a job no client can hold is refused before it is
// registered, located, with exit code 2 (the README's placement row).
func TestCLIPlacementExit2(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	dir := t.TempDir()
	site := filepath.Join(dir, "jobshift.hcl")
	os.WriteFile(site, []byte("nomad {\n  driver = \"raw_exec\"\n  cpu_mhz_per_core = 100\n}\n"), 0o644)
	name := fmt.Sprintf("huge-%d", time.Now().UnixNano()%1e9)
	job := filepath.Join(dir, "huge.json")
	os.WriteFile(job, []byte(fmt.Sprintf(`{"jobName": %q, "image": "busybox", "taskRoles": [
  {"name": "w", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 900000000, "gpuNumber": 0, "command": "true"}]}`, name)), 0o644)
	out, code := jobshift(t, "run", "-to", "nomad", "-config", site, "-user", "alice", job)
	if code != 2 || !strings.Contains(out, "cannot be placed") {
		t.Errorf("exit %d, want 2 (unplaceable)\n%s", code, out)
	}
	if _, _, err := agent.Client(t).Jobs().Info("alice~"+name, nil); err == nil {
		t.Errorf("the unplaceable job was registered")
	}
}
