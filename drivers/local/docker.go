package local

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/contract"
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
func dockerArgv(r *jobs.Role, l translate.Launch, s *taskSpec, user []string) []string {
	a := []string{"docker", "run", "--rm", "--name", s.Container, "--network", "host", "--init"}
	for _, e := range s.Added {
		a = append(a, "-e", e.Name)
	}
	if r.WorkingDir != "" {
		a = append(a, "-w", r.WorkingDir)
	}
	if s.Program != nil {
		// The program file, at the same path inside.
		a = append(a, "-v", s.Program.Path+":"+s.Program.Path+":ro")
	}
	a = append(a, s.Mounts...)
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
	return append(append(a, r.Image), l.WithWorkDir(user)...)
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

// bridgeGateway is the address of Docker's default bridge on this machine:
// containers on the bridge reach published ports there, and so does this
// machine. The default bridge often lists only its subnet; Docker then
// gives the gateway the subnet's first address.
func bridgeGateway() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "network", "inspect", "bridge",
		"--format", "{{range .IPAM.Config}}{{.Gateway}} {{.Subnet}}{{end}}").Output()
	if err != nil {
		return "", fmt.Errorf("docker network inspect bridge: %v: %w", err, drivers.ErrUnavailable)
	}
	f := strings.Fields(string(out))
	for _, s := range f {
		if ip := net.ParseIP(s); ip != nil && ip.To4() != nil {
			return ip.String(), nil
		}
	}
	for _, s := range f {
		if ip, _, err := net.ParseCIDR(s); err == nil && ip.To4() != nil {
			gw := ip.To4()
			gw[3]++
			return gw.String(), nil
		}
	}
	return "", fmt.Errorf("docker network inspect bridge: no IPv4 gateway or subnet in %q: %w", out, drivers.ErrUnavailable)
}

// publishLeinao turns a host-network docker run into LeinaoPAI's setup:
// the default bridge network, and the task's three host ports published to
// 10001–10003 inside, on the bridge gateway only (not on every interface).
func publishLeinao(argv []string, tn taskNet) []string {
	out := make([]string, 0, len(argv)+6)
	for i := 0; i < len(argv); i++ {
		if argv[i] == "--network" && i+1 < len(argv) && argv[i+1] == "host" {
			for n, in := range contract.LeinaoPorts {
				if n < len(tn.Ports[contract.LeinaoLabel]) {
					out = append(out, "-p", fmt.Sprintf("%s:%d:%d", tn.Addr, tn.Ports[contract.LeinaoLabel][n], in))
				}
			}
			i++
			continue
		}
		out = append(out, argv[i])
	}
	return out
}
