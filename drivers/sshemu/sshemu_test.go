package sshemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/ssh"
)

func TestWrap(t *testing.T) {
	cases := map[string]struct {
		idle bool
		want []string
	}{
		"runs the command": {false, []string{"sh", "/w.sh", "--", "a", "b"}},
		"idle: sshd only":  {true, []string{"sh", "/w.sh", "--idle"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Wrap(tc.idle, "/w.sh", []string{"a", "b"})); d != "" {
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
