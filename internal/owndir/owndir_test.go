package owndir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/otheruser"
)

// Each directory is checked as a place jobshift would keep state in: the
// user's own and closed ones pass (and end 0700), the others are refused
// with the reason.
func TestPrivateAndAncestors(t *testing.T) {
	other := otheruser.Get(t)
	shared := otheruser.SharedDir(t) // 1777, like /tmp
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(shared, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	mine, open, groupw := mk("mine", 0o755), mk("open", 0o777), mk("groupw", 0o775)
	theirs := filepath.Join(shared, "theirs")
	other.Sh(t, "mkdir -m 700 "+theirs)
	os.Symlink(mine, filepath.Join(shared, "link"))
	for dir, want := range map[string]string{
		mine: "", open: "writable by other users", groupw: "writable by other users",
		theirs: "owned by uid", filepath.Join(shared, "link"): "not a directory",
	} {
		err := Private(dir)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("Private(%s) = %v, want %q", dir, err, want)
		}
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v after Private, want 0700", fi.Mode().Perm())
	}
	if err := Ancestors(mine); err != nil {
		t.Errorf("under a sticky directory: %v", err)
	}
	if err := Ancestors(filepath.Join(open, "x")); err == nil {
		t.Error("under a directory all can write: accepted")
	}
	if err := Make(filepath.Join(open, "run")); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("Make under an open directory: %v", err)
	}
}
