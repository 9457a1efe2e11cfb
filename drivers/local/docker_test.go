package local

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// testImage is built from this machine's bash and sleep (docker import of a
// minimal root file system), so the test needs no registry.
const testImage = "jobshift-test/bash:1"

// needDocker builds testImage, with extra files (host path → image path).
func needDocker(t *testing.T, extra ...string) {
	t.Helper()
	if err := checkDocker(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Docker engine required in CI: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	root := t.TempDir()
	var files []string
	for _, b := range []string{"/usr/bin/bash", "/usr/bin/sleep", "/usr/bin/env"} {
		files = append(files, b)
		out, err := exec.Command("ldd", b).Output()
		if err != nil {
			t.Skipf("ldd %s: %v", b, err)
		}
		for _, f := range strings.Fields(string(out)) {
			if strings.HasPrefix(f, "/") {
				files = append(files, f)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"bash", "sleep", "sh"} {
		_ = os.MkdirAll(filepath.Join(root, "bin"), 0o755)
		target := "/usr/bin/" + l
		if l == "sh" {
			target = "/usr/bin/bash"
		}
		if err := os.Symlink(target, filepath.Join(root, "bin", l)); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		b, err := os.ReadFile(extra[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, extra[i+1]), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", "tar -C \"$1\" -c . | docker import - "+testImage, "_", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", testImage, err, out)
	}
}

// -docker runs every task in its image with host networking: the contract
// reaches the container, the completion rules end the job, and the stopped
// parameter server's container is gone afterwards.
func TestDockerRun(t *testing.T) {
	needDocker(t)
	job := paiV1("dock", 0,
		roleDef{name: "ps", n: 1, cmd: "sleep 300", minF: intp(1)},
		roleDef{name: "worker", n: 2, cmd: `echo "worker $PAI_TASK_INDEX in $PAI_WORK_DIR sees $PAI_TASK_ROLE_ps_HOST_LIST"`, minF: intp(1), minS: intp(2)})
	for _, r := range job.Roles {
		r.Image = testImage
	}
	out := &syncBuf{}
	res, dir, evs := runJob(t, job, Options{Docker: true, Output: out, Grace: 3 * time.Second})
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v\n%s", res, out)
	}
	if st := taskStates(evs)["ps-0"]; st != completion.Stopped {
		t.Errorf("ps-0 = %s, want stopped", st)
	}
	if !strings.Contains(out.String(), "[worker-1] worker 1 in / sees 127.0.0.1:") {
		t.Errorf("output:\n%s", out)
	}
	ps, err := exec.Command("docker", "ps", "-aq", "--filter", "name=jobshift-dock-"+filepath.Base(dir)).Output()
	if err != nil || len(strings.TrimSpace(string(ps))) > 0 {
		t.Errorf("containers left: %q (%v)", ps, err)
	}
}

func TestDockerUnavailable(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	job := paiV1("nodock", 0, roleDef{name: "worker", n: 1, cmd: "true"})
	d, _ := New(Options{Docker: true, RunDir: t.TempDir()})
	_, err := d.Submit(context.Background(), planOf(job))
	if err == nil || !strings.Contains(err.Error(), "-docker needs a running Docker engine") {
		t.Errorf("Submit error = %v", err)
	}
}

// A LeinaoPAI job (seed 000's shape: ps×2, worker×2, every task binding
// 10001 inside its container) runs under -docker with bridge networking
// and its three host ports published, as LeinaoPAI ran it.
func TestDockerLeinao(t *testing.T) {
	probe := filepath.Join(t.TempDir(), "probe")
	build := exec.Command("go", "build", "-o", probe, "./testdata/leinaoprobe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
	needDocker(t, probe, "probe")
	cmd := func(role string) string {
		return "/probe --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST --worker_hosts=$PAI_TASK_ROLE_worker_HOST_LIST " +
			"--job_name=" + role + " --task_index=$PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX"
	}
	job := paiV1("leinao", 0,
		roleDef{name: "ps", n: 2, cmd: cmd("ps"), minF: intp(1), minS: intp(2)},
		roleDef{name: "worker", n: 2, cmd: cmd("worker"), minF: intp(1), minS: intp(2)})
	job.Source.Dialect = jobs.ContractLeinao
	job.Contracts = []string{jobs.ContractPAIYarn, jobs.ContractLeinao}
	for _, r := range job.Roles {
		r.Image = testImage
	}
	out := &syncBuf{}
	res, _, evs := runJob(t, job, Options{Docker: true, Output: out, Grace: 3 * time.Second})
	if res.Phase != completion.PhaseSucceeded {
		t.Errorf("result = %+v\n%s", res, out)
	}
	want := map[string]completion.State{"ps-0": completion.Stopped, "ps-1": completion.Stopped,
		"worker-0": completion.Succeeded, "worker-1": completion.Succeeded}
	if diff := cmp.Diff(want, taskStates(evs)); diff != "" {
		t.Errorf("task states (-want +got):\n%s\n%s", diff, out)
	}
}
