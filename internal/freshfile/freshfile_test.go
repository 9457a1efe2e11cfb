package freshfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Each case prepares what was at the name before; the result must always be
// a regular file with the new bytes and exactly the asked mode, and
// whatever the old name pointed to is untouched.
func TestWrite(t *testing.T) {
	cases := map[string]func(t *testing.T, dir, path string) (victim string){
		"new": func(t *testing.T, dir, path string) string { return "" },
		"world-readable old file": func(t *testing.T, dir, path string) string {
			must(t, os.WriteFile(path, []byte("old"), 0o666))
			must(t, os.Chmod(path, 0o666))
			return ""
		},
		"symlink to another file": func(t *testing.T, dir, path string) string {
			victim := filepath.Join(dir, "victim")
			must(t, os.WriteFile(victim, []byte("victim"), 0o644))
			must(t, os.Symlink(victim, path))
			return victim
		},
		"dangling symlink": func(t *testing.T, dir, path string) string {
			must(t, os.Symlink(filepath.Join(dir, "nowhere"), path))
			return ""
		},
	}
	for name, prep := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.sbatch.secrets")
			victim := prep(t, dir, path)
			must(t, Write(path, []byte("secret"), 0o600))
			fi, err := os.Lstat(path)
			must(t, err)
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want a regular -rw-------", fi.Mode())
			}
			if b, _ := os.ReadFile(path); string(b) != "secret" {
				t.Errorf("content %q", b)
			}
			if victim != "" {
				if b, _ := os.ReadFile(victim); string(b) != "victim" {
					t.Errorf("the link's target was written: %q", b)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
				t.Error("a dangling link's target was created")
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
			if len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestWriteDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []byte("x"), 0o600); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
