// Package freshfile writes files that are always created new: never
// through a symbolic link placed at their name, never keeping an existing
// file's mode or owner. Secrets files depend on it (a world-readable file
// or a link left at the name by someone else must not receive them).
package freshfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write puts data at path with exactly mode. It writes a new temporary file
// in the same directory (O_CREATE|O_EXCL, created 0600 so nobody else can
// read it meanwhile), sets mode on that file, then renames it over path: an
// old file or a symbolic link at path is replaced, not followed or reused.
// A directory at path is an error.
func Write(path string, data []byte, mode os.FileMode) (err error) {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	// on the open file: the mode is exact whatever the umask, and applies
	// to the file just created, not to whatever a name points to
	if err = f.Chmod(mode.Perm()); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
