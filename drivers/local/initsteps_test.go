package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

func initStep(name string, env []jobs.EnvVar, argv ...string) jobs.InitStep {
	return jobs.InitStep{Name: name, Image: "busybox", Env: env,
		Command: jobs.Command{Kind: jobs.CommandArgv, Command: argv[:1], Args: argv[1:]}}
}

// Two init containers prepare data in order, with their own environment;
// the main container reads it and sees none of their variables.
func TestInitContainersPrepareData(t *testing.T) {
	dir := t.TempDir()
	master := kubeRole("master", "master", 1, "Never", "/bin/sh", "-c",
		`set -e; test "$(cat `+dir+`/data)" = "a b"; test -z "${STEP_VAR-}"; echo main-ok > `+dir+`/main`)
	master.Init = []jobs.InitStep{
		initStep("first", []jobs.EnvVar{{Name: "STEP_VAR", Value: "a"}}, "/bin/sh", "-c", `printf %s "$STEP_VAR" > `+dir+`/data`),
		initStep("second", []jobs.EnvVar{{Name: "STEP_VAR", Value: "b"}}, "/bin/sh", "-c", `test -s `+dir+`/data && printf ' %s' "$STEP_VAR" >> `+dir+`/data`),
	}
	res, _, _ := runJob(t, kube(jobs.FormatPyTorchJob, "init", nil, master), Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main")); string(b) != "main-ok\n" {
		t.Fatalf("main container did not run after its init containers: %q", b)
	}
}

// restartPolicy Never: a failing init container fails the pod with its
// code and the main container never runs.
func TestInitContainerFailureNever(t *testing.T) {
	dir := t.TempDir()
	master := kubeRole("master", "master", 1, "Never", "/bin/sh", "-c", "touch "+dir+"/main")
	master.Init = []jobs.InitStep{initStep("fetch", nil, "/bin/sh", "-c", "exit 4")}
	res, runDir, _ := runJob(t, kube(jobs.FormatPyTorchJob, "initfail", nil, master), Options{})
	if res.Phase != completion.PhaseFailed || res.ExitCode != 4 {
		t.Fatalf("result = %+v, want failed with exit 4", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "main")); err == nil {
		t.Fatal("the main container ran although its init container failed")
	}
	b, _ := os.ReadFile(filepath.Join(runDir, "master-0", "attempt-1", "stderr"))
	if !strings.Contains(string(b), `init container "fetch" exited 4`) {
		t.Errorf("stderr does not say which init container failed: %q", b)
	}
}

// restartPolicy OnFailure: the kubelet restarts the failed init container,
// not the one that already succeeded.
func TestInitContainerRestartOnFailure(t *testing.T) {
	dir := t.TempDir()
	master := kubeRole("master", "master", 1, "OnFailure", "/bin/sh", "-c", "true")
	master.Init = []jobs.InitStep{
		initStep("once", nil, "/bin/sh", "-c", "echo x >> "+dir+"/once"),
		initStep("flaky", nil, "/bin/sh", "-c", "test -f "+dir+"/flaky && exit 0; touch "+dir+"/flaky; exit 1"),
	}
	res, _, _ := runJob(t, kube(jobs.FormatPyTorchJob, "initrestart", nil, master), Options{})
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("result = %+v, want succeeded after one in-place restart", res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "once")); string(b) != "x\n" {
		t.Fatalf("the init container that succeeded ran again on the restart: %q", b)
	}
}
