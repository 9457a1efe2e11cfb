// Package owndir checks that a directory jobshift keeps a run's or a job's
// state in belongs to the user running it and to nobody else. On a shared
// machine another user may have made the directory first (a predictable
// name: `-run-dir /tmp/r1`, ./.jobshift in a shared project directory) or
// be able to rename it away and put their own in its place; they could
// then swap the files the tasks run. Such a directory is refused, with the
// reason, never repaired with a chmod.
package owndir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Private makes dir, which must be a real directory of this user's that
// no other user can write, private (0700).
func Private(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("not a directory (%v): refusing it", fi.Mode().Type())
	}
	st := fi.Sys().(*syscall.Stat_t)
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d): refusing it; name a directory of yours", st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("writable by other users (%v): refusing it; chmod go-w it or name another", fi.Mode().Perm())
	}
	return os.Chmod(dir, 0o700)
}

// Ancestors checks that no other user can rename or replace what is under
// dir: dir and each directory above it must belong to this user or to
// root, and be writable by nobody else unless sticky (/tmp) — the rule
// sshd's StrictModes applies to a home directory.
func Ancestors(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Geteuid() && st.Uid != 0 {
			return fmt.Errorf("%s belongs to uid %d, who could replace what jobshift keeps under it: use a directory of yours", p, st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("%s is writable by other users (%v), who could replace what jobshift keeps under it: use a directory of yours", p, fi.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// Make creates dir and its missing parents 0700 and checks it with
// Ancestors and Private.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := Ancestors(filepath.Dir(dir)); err != nil {
		return err
	}
	return Private(dir)
}
