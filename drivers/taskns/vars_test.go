package taskns

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/shvars"
)

// taskOutput is true for what taskns.sh sets for the command on purpose,
// and its inputs.
func taskOutput(n string) bool {
	switch n {
	case "HOSTNAME", "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME":
		return true
	}
	return shvars.Shell(n) || strings.HasPrefix(n, "OMPI_MCA_") || strings.HasPrefix(n, "JOBSHIFT_")
}

// TestScriptKeepsJobVariables: a job variable named as one of the
// script's own (mode, name, addr, ...) reaches the command unchanged, in
// every mode, through the peer, ssh-peer and interface paths.
func TestScriptKeepsJobVariables(t *testing.T) {
	sentinels := shvars.Sentinels(Script, regexp.MustCompile(`^_jsn_`), taskOutput)
	env := append(shvars.Env(sentinels), "JOBSHIFT_HOSTS=127.0.0.1 peer-0 PEERVAR", "PEERVAR=peer-0:1",
		"JOBSHIFT_SSH_HOSTS=127.0.0.1 22 w-0", "JOBSHIFT_PEER_HOSTS=127.0.0.1 p-0")
	data := openDir(t)
	if err := os.WriteFile(filepath.Join(data, "in.txt"), []byte("input"), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := []Mode{ModeNone}
	if os.Geteuid() == 0 || func() bool { m, _ := Probe(); return m == ModeUser }() {
		ms = append(ms, modes(t)...)
	}
	for _, mode := range ms {
		t.Run(string(mode), func(t *testing.T) {
			s := Spec{Hostname: "job-worker-1", Addr: "127.0.0.1",
				Hosts: []Host{{Addr: "127.0.0.1", Names: []string{"job-worker-1"}}}}
			if mode != ModeNone {
				s.Binds = []Bind{{Src: data, Dst: "/jobshift-test-vars/train", ReadOnly: true},
					{Src: filepath.Join(data, "in.txt"), Dst: "/jobshift-test-vars/in.txt", Tree: data},
					{Dst: "/jobshift-test-vars/tmp", Empty: EmptyMemory, SizeMiB: 1}, {Dst: "/jobshift-test-vars/disk", Empty: EmptyDisk}}
			}
			out, err := run(t, mode, s, env, "env")
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			shvars.Check(t, out, sentinels)
		})
	}
}
