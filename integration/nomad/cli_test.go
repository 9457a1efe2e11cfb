package nomad_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
// to the end, run -detach then status (which follows and enforces), logs,
// and stop.
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
	if code != 0 || !strings.Contains(out, "succeeded") {
		t.Fatalf("run: exit %d\n%s", code, out)
	}

	id := fmt.Sprintf("cli-detach-%d", n)
	out, code = jobshift(t, "run", "-to", "nomad", "-detach", "-config", site, write(id))
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("run -detach: exit %d\n%s", code, out)
	}
	out, code = jobshift(t, "status", "-config", site, id)
	if code != 0 || !strings.Contains(out, "succeeded") || !strings.Contains(out, "ps-0 stopped") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
	out, code = jobshift(t, "logs", "-config", site, id, "chief-0")
	if code != 0 || !strings.Contains(out, "chief sees [") {
		t.Fatalf("logs: exit %d\n%s", code, out)
	}
	// status again: the recorded verdict, not a new judgement.
	if out, code = jobshift(t, "status", "-config", site, id); code != 0 || !strings.Contains(out, "succeeded") {
		t.Fatalf("status (recorded): exit %d\n%s", code, out)
	}

	id2 := fmt.Sprintf("cli-stop-%d", n)
	f := write(id2)
	src, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(src, []byte(`"python3", "-c"`), []byte(`"sleep", "3600", "-c"`), 1), 0o644)
	if out, code = jobshift(t, "run", "-to", "nomad", "-detach", "-config", site, f); code != 0 {
		t.Fatalf("run -detach: %s", out)
	}
	if out, code = jobshift(t, "stop", "-config", site, id2); code != 0 {
		t.Fatalf("stop: %s", out)
	}
	out, code = jobshift(t, "status", "-config", site, id2)
	if code == 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("status after stop: exit %d\n%s", code, out)
	}
}
