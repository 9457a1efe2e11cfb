package sshemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/shvars"
)

// emuOutput is true for what sshemu.sh sets for the command on purpose
// (PATH, the interface variables), and its inputs.
func emuOutput(n string) bool {
	switch n {
	case "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME":
		return true
	}
	return shvars.Shell(n) || strings.HasPrefix(n, "OMPI_MCA_") || strings.HasPrefix(n, "JOBSHIFT_")
}

// TestScriptKeepsJobVariables: a job variable named as one of the
// script's own (addr, port, dir, user, key, hosts, ...) reaches the
// command unchanged, whether the command is exec'd or, holding the MPI
// directory, run as a child.
func TestScriptKeepsJobVariables(t *testing.T) {
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
	sentinels := shvars.Sentinels(Script, regexp.MustCompile(`^_jse_`), emuOutput)
	for i, mpi := range []bool{false, true} {
		t.Run(fmt.Sprint("mpi=", mpi), func(t *testing.T) {
			cmd := exec.Command("sh", script, "--", "env")
			cmd.Env = append(os.Environ(), shvars.Env(sentinels)...)
			cmd.Env = append(cmd.Env, fmt.Sprintf("JOBSHIFT_SSH_HOSTS=127.0.0.1 %d w-0,127.0.0.1 2 w-1", freePort(t)),
				"JOBSHIFT_SSH_SELF=w-0", "JOBSHIFT_SSH_KEY="+key, "JOBSHIFT_SSH_DIR="+filepath.Join(dir, fmt.Sprint("ssh", i)))
			if mpi {
				cmd.Env = append(cmd.Env, "JOBSHIFT_MPI_DIR="+filepath.Join(dir, "mpi"), "JOBSHIFT_MPI_HOSTFILE=w-0 slots=1,w-1 slots=1",
					"JOBSHIFT_MPIRUN="+filepath.Join(dir, "mpirun.sh"))
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			shvars.Check(t, string(out), sentinels)
		})
	}
}
