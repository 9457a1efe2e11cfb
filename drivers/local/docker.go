package local

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
)

// dockerArgv runs the task's command in its image the way the source
// platform did: host networking (OpenPAI used --network=host; for Kubeflow
// jobs it lets every task reach the others on 127.0.0.1 with the ports of
// the contract) and the platform's command in place of, or as arguments to,
// the image entrypoint.
//
// Values are never put on the command line: `-e NAME` makes docker copy
// NAME from its own environment, which is the task's environment. That keeps
// secrets out of `ps` and avoids any quoting of the user's bytes.
func dockerArgv(r *jobs.Role, s *taskSpec, user []string) []string {
	a := []string{"docker", "run", "--rm", "--name", s.Container, "--network", "host", "--init"}
	for _, e := range s.Added {
		a = append(a, "-e", e.Name)
	}
	if r.WorkingDir != "" {
		a = append(a, "-w", r.WorkingDir)
	}
	if r.Resources.ShmMiB > 0 {
		a = append(a, "--shm-size", fmt.Sprintf("%dm", r.Resources.ShmMiB))
	}
	c := r.Command
	switch {
	case c.Kind == jobs.CommandArgv && len(c.Command) > 0:
		a = append(a, "--entrypoint", c.Command[0], r.Image)
		a = append(a, c.Command[1:]...)
		return append(a, c.Args...)
	case c.Kind == jobs.CommandArgv:
		return append(append(a, r.Image), user...)
	}
	// PAI: the runtime exported PAI_WORK_DIR=$(pwd) (the image WORKDIR)
	// before running the user command; only the container knows it.
	user = append([]string(nil), user...)
	if len(user) > 2 && user[0] == "bash" && user[1] == "-c" {
		user[2] = `export PAI_WORK_DIR="$PWD"; ` + user[2]
	}
	return append(append(a, r.Image), user...)
}

// checkDocker reports drivers.ErrUnavailable when no Docker engine answers.
func checkDocker(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "version", "--format", "{{.Server.Version}}").CombinedOutput()
	if err != nil {
		return fmt.Errorf("-docker needs a running Docker engine, and `docker version` failed: %s: %w",
			strings.TrimSpace(string(out)), drivers.ErrUnavailable)
	}
	return nil
}

// dockerKill removes a container that outlived its `docker run` client
// (the client got SIGKILL after the grace period, or jobshift is stopping).
func dockerKill(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = exec.CommandContext(ctx, "docker", "rm", "-f", name).Run()
}
