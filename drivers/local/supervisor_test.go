package local

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/contract"
)

// orphan starts argv under a supervisor whose lifeline the test holds, waits
// until ready() holds, then cuts the lifeline as a SIGKILL of jobshift would,
// and returns the supervisor's exit code once it is gone.
func orphan(t *testing.T, argv []string, container string, ready func(pgid int) bool) (code, pgid int) {
	t.Helper()
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer lifeR.Close()
	spec := &taskSpec{Ref: jobs.TaskRef{Role: "w", Index: 0}, Process: contract.ProcessMain,
		Env: os.Environ(), Dir: t.TempDir(), Grace: time.Second, Container: container}
	sup, err := superviseWith(lifeR, spec, argv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return ready(sup.pgid) })
	lifeW.Close()
	err = sup.cmd.Wait()
	return exitCode(sup.cmd.ProcessState, err), sup.pgid
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for range 3000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

// With jobshift gone, the supervisor stops the whole task group: SIGTERM,
// and SIGKILL after the grace for what ignores SIGTERM.
func TestSupervisorStopsOrphanedGroup(t *testing.T) {
	for name, tc := range map[string]struct {
		script string
		code   int
	}{
		"ends on SIGTERM":      {`sleep 300 & wait`, 143},
		"ignores SIGTERM":      {`trap '' TERM; sleep 300 & wait; sleep 300`, 137},
		"child ignores it too": {`(trap '' TERM; sleep 300) & wait`, 143},
	} {
		t.Run(name, func(t *testing.T) {
			argv := []string{"/bin/bash", "-c", tc.script}
			code, pgid := orphan(t, argv, "", func(pgid int) bool { return len(groupMembers(pgid)) >= 2 })
			if code != tc.code {
				t.Errorf("task exit %d, want %d", code, tc.code)
			}
			// The SIGKILL to the group follows the main process's end.
			waitUntil(t, func() bool { return len(groupMembers(pgid)) == 0 })
		})
	}
}

// A -docker task whose jobshift is gone: the container goes too.
func TestSupervisorStopsOrphanedContainer(t *testing.T) {
	needDocker(t)
	name := "jobshift-orphan-test-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + time.Now().UTC().Format("150405.000000")
	name = strings.NewReplacer(".", "-").Replace(name)
	t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })
	argv := []string{"docker", "run", "--rm", "--name", name, "--init", testImage, "sleep", "300"}
	if p, err := exec.LookPath("docker"); err == nil {
		argv[0] = p
	}
	running := func(int) bool {
		out, err := exec.Command("docker", "inspect", "-f", "{{.State.Running}}", name).Output()
		return err == nil && strings.TrimSpace(string(out)) == "true"
	}
	orphan(t, argv, name, running)
	waitUntil(t, func() bool { return exec.Command("docker", "inspect", name).Run() != nil })
}
