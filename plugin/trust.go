package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/jobshift/jobshift/internal/owndir"
	"github.com/jobshift/jobshift/siteconfig"
)

// unsafeReason says why the plugin executable at path must not run, ""
// when it may. Whoever can replace the file, or write into its directory,
// runs code as every user who starts jobshift: the file and its directory
// must belong to root or this user and be writable by nobody else (a
// sticky /tmp is no better: anyone may put a binary there), and no other
// user may be able to rename a directory above (owndir.Ancestors). A
// plugin the site pins (plugins.sha256) must have that digest.
func unsafeReason(path string, site *siteconfig.Config) string {
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			return err.Error()
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Geteuid() && st.Uid != 0 {
			return fmt.Sprintf("%s belongs to uid %d", p, st.Uid)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Sprintf("%s is writable by other users (%v)", p, fi.Mode().Perm())
		}
	}
	if err := owndir.Ancestors(filepath.Dir(filepath.Dir(path))); err != nil {
		return err.Error()
	}
	if site == nil || site.Plugins == nil {
		return ""
	}
	want, pinned := site.Plugins.SHA256[filepath.Base(path)]
	if !pinned {
		return ""
	}
	got, err := fileSHA256(path)
	if err != nil {
		return err.Error()
	}
	if got != want {
		return fmt.Sprintf("its SHA-256 is %s, the site config's plugins.sha256 pins %s", got, want)
	}
	return ""
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
