package sshemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"golang.org/x/crypto/ssh"
)

func mpiJob(worker jobs.Command) *jobs.Job {
	p := []jobs.Port{{Label: "ssh", Count: 1}}
	return &jobs.Job{Name: "m", Source: jobs.Source{Format: jobs.FormatMPIJob, Version: "kubeflow.org/v2beta1"}, Roles: []*jobs.Role{
		{Name: "launcher", ReplicaType: "launcher", Instances: 1, Ports: p, Command: jobs.Command{Kind: jobs.CommandArgv, Command: []string{"mpirun", "x"}}},
		{Name: "worker", ReplicaType: "worker", Instances: 2, Ports: p, Command: worker}}}
}

func TestIdleAndWrap(t *testing.T) {
	argv := func(c ...string) jobs.Command { return jobs.Command{Kind: jobs.CommandArgv, Command: c} }
	cases := map[string]struct {
		worker jobs.Command
		idle   bool
	}{
		"sshd -De":              {jobs.Command{Kind: jobs.CommandArgv, Command: []string{"/usr/sbin/sshd"}, Args: []string{"-De"}}, true},
		"no command (kubexec)":  {jobs.Command{Kind: jobs.CommandArgv}, true},
		"bash -c mkdir; sshd":   {argv("/bin/bash", "-c", "mkdir -p /run/sshd\n/usr/sbin/sshd -D"), true},
		"a worker program":      {argv("python", "serve.py"), false},
		"sshd_config is a word": {argv("cat", "/etc/ssh/sshd_config"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := mpiJob(tc.worker)
			if Idle(j, 0) {
				t.Error("the launcher is idle")
			}
			if got := Idle(j, 1); got != tc.idle {
				t.Errorf("Idle = %v, want %v", got, tc.idle)
			}
			want := []string{"sh", "/w.sh", "--", "a", "b"}
			if tc.idle {
				want = []string{"sh", "/w.sh", "--idle"}
			}
			if d := cmp.Diff(want, Wrap(j, 1, "/w.sh", []string{"a", "b"})); d != "" {
				t.Errorf("Wrap (-want +got):\n%s", d)
			}
		})
	}
}

func TestNewKey(t *testing.T) {
	priv, pub, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		t.Fatalf("ssh cannot read the private key: %v", err)
	}
	if got := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))); got != pub {
		t.Errorf("public key %q does not match the private key's %q", pub, got)
	}
	if _, err := exec.LookPath("ssh-keygen"); err == nil {
		// what the wrapper does with it
		f := filepath.Join(t.TempDir(), "k")
		if err := os.WriteFile(f, priv, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("ssh-keygen", "-y", "-f", f).Output()
		if err != nil || !strings.HasPrefix(string(out), pub+" ") {
			t.Errorf("ssh-keygen -y: %v %q, want %q", err, out, pub)
		}
	}
}

func TestScriptShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck is not installed")
		}
		t.Skip("shellcheck not installed")
	}
	if out, err := exec.Command("shellcheck", "-s", "sh", "sshemu.sh").CombinedOutput(); err != nil {
		t.Errorf("shellcheck:\n%s", out)
	}
}
