// Package otheruser gives tests a second, unprivileged user of the same
// machine: the attacker on a shared cluster (a login node, a Nomad client
// running many users' jobs). Tests run as root create it with useradd and
// run the attacker's steps under its uid; elsewhere they skip, except in
// CI (CI=true), where a skipped isolation test would hide a regression.
package otheruser

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// Name is the account the tests create (or reuse).
const Name = "jobshift-other"

// User is the second user.
type User struct {
	Name     string
	UID, GID uint32
}

// Get returns the second user, creating it when it does not exist yet.
func Get(t testing.TB) User {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("isolation tests need root (to create a second user) in CI")
		}
		t.Skip("needs root to create a second user")
	}
	u, err := user.Lookup(Name)
	if err != nil {
		out, aerr := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/sh", Name).CombinedOutput()
		// exit 9: another test created it meanwhile
		var ee *exec.ExitError
		if aerr != nil && !(errors.As(aerr, &ee) && ee.ExitCode() == 9) {
			t.Fatalf("useradd %s: %v %s", Name, aerr, out)
		}
		if u, err = user.Lookup(Name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return User{Name: Name, UID: uint32(uid), GID: uint32(gid)}
}

// Command is name args run as u (no supplementary groups).
func (u User) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.UID, Gid: u.GID, Groups: []uint32{}}}
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/", "LC_ALL=C"}
	return cmd
}

// Sh runs script with sh as u and fails t when it fails.
func (u User) Sh(t testing.TB, script string) {
	t.Helper()
	if out, err := u.Command("sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("as %s: %s: %v\n%s", u.Name, script, err, out)
	}
}

// SharedDir is a new directory both users can write, sticky like /tmp
// (01777, removed after the test): t.TempDir's parent is private to the
// test's user.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "jobshift-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return dir
}
