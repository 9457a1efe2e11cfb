package sshemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenMPIInterface: where nothing named OpenMPI's interface (a
// container), the task's command gets the smallest network holding every
// peer's address (OpenMPI passes it on to the daemons on the other
// nodes, so it must match there too), lo when every peer shares the
// task's address, nothing for a name; a setting of the job's stays.
func TestOpenMPIInterface(t *testing.T) {
	sshTools(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	if err := os.WriteFile(script, []byte(Script), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct{ hosts, set, want string }{
		{"10.87.0.11 %d w-0,10.87.0.12 2 w-1,10.87.0.13 2 w-2", "", "10.87.0.8/29 10.87.0.8/29"},
		{"192.168.5.200 %d w-0,192.168.4.1 2 w-1", "", "192.168.4.0/23 192.168.4.0/23"},
		{"127.0.0.1 %d w-0,127.0.0.1 2 w-1", "", "lo lo"},
		{"localhost %d w-0,localhost 2 w-1", "", "- -"},
		{"10.87.0.11 %d w-0,10.87.0.12 2 w-1", "eth1", "eth1 10.87.0.8/29"},
	} {
		cmd := exec.Command("sh", script, "--", "sh", "-c", `echo "${OMPI_MCA_btl_tcp_if_include:--} ${OMPI_MCA_oob_tcp_if_include:--}"`)
		cmd.Env = append(os.Environ(), "JOBSHIFT_SSH_HOSTS="+fmt.Sprintf(tc.hosts, freePort(t)), "JOBSHIFT_SSH_SELF=w-0",
			"JOBSHIFT_SSH_KEY="+key, "JOBSHIFT_SSH_DIR="+filepath.Join(dir, fmt.Sprint("ssh", i)))
		if tc.set != "" {
			cmd.Env = append(cmd.Env, "OMPI_MCA_btl_tcp_if_include="+tc.set)
		}
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.hosts, got, err, tc.want)
		}
	}
}
