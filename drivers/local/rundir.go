package local

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/jobshift/jobshift/internal/owndir"
)

// maxNamePart bounds a user-chosen name (job, role) inside a path
// component: Linux refuses components over 255 bytes (ENAMETOOLONG), and
// a run directory name also carries a time stamp and maybe a suffix.
const maxNamePart = 100

// pathPart makes a user's name usable as (part of) one path component: a
// slash would make it several (or climb out with ".."), so it becomes "-";
// a name over maxNamePart bytes is cut at a character boundary and gets 8
// hex digits of its SHA-256, so different long names stay different. Only
// the directory name changes: the job and its environment keep the name.
func pathPart(name string) string {
	s := strings.ReplaceAll(name, "/", "-")
	s = strings.ReplaceAll(s, "\x00", "-")
	if s == "." || s == ".." || s == "" {
		s = strings.Repeat("_", len(s)+1)
	}
	if len(s) <= maxNamePart {
		return s
	}
	sum := sha256.Sum256([]byte(name))
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "-" + hex.EncodeToString(sum[:4])
}

// claimMarker is created with O_EXCL in a run directory: whoever creates it
// owns the directory. It is the event log, which every run writes anyway.
const claimMarker = "events.jsonl"

// errRunDirTaken: -run-dir names a directory another run uses or used.
var errRunDirTaken = errors.New("already holds a run")

// claimRunDir makes dir this run's own. A directory the user named
// (-run-dir) may exist but must not hold a run: two runs in one directory
// overwrite each other's logs. A default name that is taken (two runs of a
// job in the same millisecond) gets a suffix -2, -3, ... instead. The run
// directory is private (0700) and must stay so: see internal/owndir.
func claimRunDir(dir string, named bool) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("local driver: run directory: %w", err)
	}
	if err := owndir.Ancestors(filepath.Dir(dir)); err != nil {
		return "", fmt.Errorf("local driver: run directory %s: %w", dir, err)
	}
	if named {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("local driver: run directory: %w", err)
		}
		if err := owndir.Private(dir); err != nil {
			return "", fmt.Errorf("local driver: run directory %s: %w", dir, err)
		}
		if err := createMarker(dir); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("local driver: run directory %s %w (%s exists): name another -run-dir, or remove it first",
					dir, errRunDirTaken, claimMarker)
			}
			return "", fmt.Errorf("local driver: run directory: %w", err)
		}
		return dir, nil
	}
	for n := 1; ; n++ {
		try := dir
		if n > 1 {
			try = fmt.Sprintf("%s-%d", dir, n)
		}
		err := os.Mkdir(try, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			err = owndir.Private(try)
		}
		if err == nil {
			err = createMarker(try)
		}
		if err != nil {
			return "", fmt.Errorf("local driver: run directory: %w", err)
		}
		return try, nil
	}
}

func createMarker(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, claimMarker), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
