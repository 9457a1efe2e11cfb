package local

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathPart(t *testing.T) {
	// Hashes from: printf %s NAME | sha256sum | cut -c1-8
	long := strings.Repeat("a", 300)
	long2 := strings.Repeat("a", 299) + "b"
	// 63 ASCII bytes, then a 2-byte rune across the 64-byte cut.
	cutRune := strings.Repeat("x", 63) + "é" + strings.Repeat("y", 100)
	for name, tc := range map[string]struct{ in, want string }{
		"plain":          {"mnist-train", "mnist-train"},
		"unicode kept":   {"训练-é", "训练-é"},
		"slash":          {"a/../b", "a-..-b"},
		"dot":            {".", "__"},
		"dotdot":         {"..", "___"},
		"100 bytes kept": {strings.Repeat("z", 100), strings.Repeat("z", 100)},
		"300 bytes cut":  {long, strings.Repeat("a", 64) + "-" + "9835fa6b"},
		"differ in tail": {long2, strings.Repeat("a", 64) + "-" + "daf00507"},
		"rune not split": {cutRune, strings.Repeat("x", 63) + "-" + "72cb8b2c"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := pathPart(tc.in); got != tc.want {
				t.Errorf("pathPart(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// Two runs of one job in the same millisecond get the same default name:
// the second gets "-2" (and its own event log) instead of sharing.
func TestClaimRunDirDefault(t *testing.T) {
	base := filepath.Join(t.TempDir(), "runs", "job-20261123T211500.123")
	a, err := claimRunDir(base, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := claimRunDir(base, false)
	if err != nil {
		t.Fatal(err)
	}
	if a != base || b != base+"-2" {
		t.Errorf("claimed %s and %s, want %s and %s-2", a, b, base, base)
	}
}

// A -run-dir may exist (empty), but a second run in it is refused.
func TestClaimRunDirNamed(t *testing.T) {
	dir := t.TempDir()
	if got, err := claimRunDir(dir, true); err != nil || got != dir {
		t.Fatalf("first claim = %s, %v", got, err)
	}
	_, err := claimRunDir(dir, true)
	if !errors.Is(err, errRunDirTaken) {
		t.Fatalf("second claim: %v, want %v", err, errRunDirTaken)
	}
	// A marker that is a symlink is not followed into another file.
	dir2 := t.TempDir()
	target := filepath.Join(t.TempDir(), "victim")
	if err := os.Symlink(target, filepath.Join(dir2, claimMarker)); err != nil {
		t.Fatal(err)
	}
	if _, err := claimRunDir(dir2, true); err == nil {
		t.Error("claimed a directory whose event log is a symlink")
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the symlink's target was created: %v", err)
	}
}
