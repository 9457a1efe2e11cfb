package sshemu

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/internal/otheruser"
)

// sshTools skips a test that needs the ssh binaries.
func sshTools(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("needs openssh-server")
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen")
	}
}

// A second user of the machine pre-creates the job's predictable MPI
// directory (Nomad's /tmp/jobshift-mpi-<job>) and, once the launcher
// wrote kubexec.sh there, swaps it: mpirun (here the launcher's command)
// would run the attacker's program as the job's user. The wrapper must
// refuse a directory it does not own, before the command runs.
func TestMPIDirTakeover(t *testing.T) {
	sshTools(t)
	other := otheruser.Get(t)
	dir := otheruser.SharedDir(t)
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	mdir := fmt.Sprintf("/tmp/jobshift-mpi-takeover-%d", time.Now().UnixNano())
	pwned := filepath.Join(dir, "proof", "pwned")
	defer os.RemoveAll(mdir)
	other.Sh(t, "mkdir -m 777 "+mdir)
	// the attacker waits for the launcher's kubexec.sh and replaces it
	swap := other.Command("sh", "-c", `for i in $(seq 100); do
		if [ -e "$0/kubexec.sh" ]; then
			printf '#!/bin/sh\necho owned >'"$1"'\n' >"$0/k.new" && chmod 777 "$0/k.new" && mv -f "$0/k.new" "$0/kubexec.sh"
			exit 0
		fi
		sleep 0.05
	done`, mdir, pwned)
	if err := swap.Start(); err != nil {
		t.Fatal(err)
	}
	defer swap.Wait()
	proof := filepath.Join(dir, "proof")
	os.Mkdir(proof, 0o777)
	os.Chmod(proof, 0o777) // the attacker's program may write its proof here
	hosts := fmt.Sprintf("127.0.0.1 %d job-launcher", freePort(t))
	cmd := exec.Command("sh", script, "--", "sh", "-c", `sleep 2; "$0/kubexec.sh" job-worker-0 true`, mdir)
	cmd.Env = append(os.Environ(), "JOBSHIFT_SSH_HOSTS="+hosts, "JOBSHIFT_SSH_SELF=job-launcher", "JOBSHIFT_SSH_KEY="+key,
		"JOBSHIFT_SSH_DIR="+filepath.Join(dir, "ssh"), "JOBSHIFT_MPI_DIR="+mdir, "JOBSHIFT_MPI_HOSTFILE=job-worker-0 slots=1")
	out, err := cmd.CombinedOutput()
	if _, serr := os.Stat(pwned); serr == nil {
		t.Fatalf("the other user's kubexec.sh ran as the job's user (%v: %s)", err, out)
	}
	if err == nil || !strings.Contains(string(out), "belongs to another user") {
		t.Fatalf("a directory of another user's was accepted: %v\n%s", err, out)
	}
}

// The task's own ssh directory (sshd config, authorized keys, the ssh on
// PATH) prepared by another user is refused too, as is a link in its place
// (to a directory of theirs: never point a test's link at a system path).
func TestSSHDirNotOurs(t *testing.T) {
	sshTools(t)
	other := otheruser.Get(t)
	dir := otheruser.SharedDir(t)
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	shared := filepath.Join(dir, "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o777|os.ModeSticky)
	other.Sh(t, "mkdir -m 700 "+shared+"/theirs && mkdir -m 777 "+shared+"/decoy && ln -s decoy "+shared+"/link && mkdir -m 777 "+shared+"/open")
	os.Mkdir(shared+"/mine-open", 0o777)
	os.Chmod(shared+"/mine-open", 0o777)
	for name, want := range map[string]string{"theirs": "belongs to another user", "link": "not a directory", "mine-open": "writable by other users"} {
		cmd := exec.Command("sh", script, "--", "true")
		cmd.Env = append(os.Environ(), fmt.Sprintf("JOBSHIFT_SSH_HOSTS=127.0.0.1 %d w-0", freePort(t)), "JOBSHIFT_SSH_SELF=w-0",
			"JOBSHIFT_SSH_KEY="+key, "JOBSHIFT_SSH_DIR="+filepath.Join(shared, name))
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: want a refusal %q, got %v\n%s", name, want, err, out)
		}
	}
}

// A forged topology (a snapshot Variable someone else wrote) gives a peer
// an address carrying a newline and a ProxyCommand: ssh to that peer
// would run it in the task. The wrapper refuses the entry before it
// writes any ssh_config.
func TestForgedAddressNotInSSHConfig(t *testing.T) {
	sshTools(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(dir, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	proof := filepath.Join(dir, "proof")
	for _, forged := range []string{
		"10.0.0.1\nProxyCommand\ttouch\t" + proof,
		"10.0.0.1\n\tProxyCommand\ttouch\t" + proof,
		`10.0.0.1"`, "%h", "10.0.0.1;id",
	} {
		hosts := fmt.Sprintf("127.0.0.1 %d w-0,%s 22 w-1", freePort(t), forged)
		cmd := exec.Command("sh", script, "--", "ssh", "-o", "ConnectTimeout=1", "w-1", "true")
		cmd.Env = append(os.Environ(), "JOBSHIFT_SSH_HOSTS="+hosts, "JOBSHIFT_SSH_SELF=w-0", "JOBSHIFT_SSH_KEY="+key,
			"JOBSHIFT_SSH_DIR="+filepath.Join(dir, "ssh"))
		out, err := cmd.CombinedOutput()
		os.RemoveAll(filepath.Join(dir, "ssh"))
		if _, serr := os.Stat(proof); serr == nil {
			t.Fatalf("%q: the forged ProxyCommand ran (%v: %s)", forged, err, out)
		}
		if err == nil || !strings.Contains(string(out), "bad address in host entry") {
			t.Errorf("%q: want the entry refused, got %v\n%s", forged, err, out)
		}
	}
}

// The sshd key swap: the task's ssh directory in a directory every user
// can write and that is not sticky (Nomad's local/, 0777). Another user
// renames it away, makes their own with their public key in
// authorized_keys (and a host key: sshd re-reads it per connection) and
// logs in to the task's sshd as the job's user. The
// wrapper refuses such a place before starting any sshd (Nomad's tasks
// use secrets/, sticky); whatever it serves, keys come from its private
// directory (AuthorizedKeysCommand, StrictModes yes).
func TestSSHKeySwap(t *testing.T) {
	sshTools(t)
	other := otheruser.Get(t)
	shared := otheruser.SharedDir(t)
	key := filepath.Join(t.TempDir(), "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	script := filepath.Join(shared, "sshemu.sh")
	os.WriteFile(script, []byte(Script), 0o644)
	local := filepath.Join(shared, "local")
	os.Mkdir(local, 0o777)
	os.Chmod(local, 0o777)
	theirs := filepath.Join(shared, "theirs")
	other.Sh(t, "mkdir -m 700 "+theirs+" && ssh-keygen -q -t ed25519 -N '' -f "+theirs+"/key")
	port := freePort(t)
	victim := exec.Command("sh", script, "--", "sleep", "8")
	victim.Env = append(os.Environ(), fmt.Sprintf("JOBSHIFT_SSH_HOSTS=127.0.0.1 %d w-0", port), "JOBSHIFT_SSH_SELF=w-0",
		"JOBSHIFT_SSH_KEY="+key, "JOBSHIFT_SSH_DIR="+filepath.Join(local, "ssh"))
	var vout strings.Builder
	victim.Stdout, victim.Stderr = &vout, &vout
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- victim.Wait() }()
	listening := false
	for i := 0; i < 50 && !listening; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			listening = true
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
	swap := fmt.Sprintf(`d=%[1]s/ssh; mv "$d" "$d.gone" 2>/dev/null; mkdir -p "$d" && cp %[2]s/key.pub "$d/authorized_keys" && ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
		ssh -i %[2]s/key -p %[3]d -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o ConnectTimeout=3 root@127.0.0.1 id`,
		local, theirs, port)
	out, err := other.Command("sh", "-c", swap).CombinedOutput()
	if err == nil {
		t.Fatalf("the other user logged in to the task's sshd as its user:\n%s", out)
	}
	if listening {
		t.Errorf("the wrapper served an sshd from a directory others can replace")
	}
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the wrapper did not end")
	}
	if !strings.Contains(vout.String(), "can be written by other users") {
		t.Errorf("the wrapper did not say why it refused:\n%s", vout.String())
	}
}
