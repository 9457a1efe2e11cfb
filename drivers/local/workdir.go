package local

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Every task gets a private working directory (issue 10, item 11): on every
// source platform a task had its own container file system, so a file one
// task writes in its working directory must not be seen, or overwritten, by
// another task. The directory still shows the shared directory's files (the
// invocation directory, the stand-in for the image WORKDIR with the job's
// code), so `python3 examples/mesh.py` works unchanged.
//
// Two ways, chosen once per run directory (workModeFor):
//
//   - overlay: each start of a task runs in its own mount namespace
//     (CLONE_NEWNS, / remounted private by Go's forkExec, so nothing
//     propagates to the host) where an overlayfs is mounted on the private
//     directory: lower = the shared directory (read-only to the task),
//     upper = <start>/files (what this start wrote, created, deleted). The
//     mount exists only in the task's namespace and vanishes with its last
//     process, even when jobshift itself is killed. A restarted task gets a
//     fresh upper, as a restarted container gets a fresh writable layer.
//   - links: the private directory is a real directory holding one symlink
//     per entry of the shared directory; files the task creates land in it.
//     Writing through a link (to an existing file, or into a linked
//     sub-directory) reaches the shared one. Restarts within an attempt
//     keep the directory.

// workMode is how private working directories are made.
type workMode string

const (
	workOverlay workMode = "overlay"
	workLinks   workMode = "links"
)

// overlayScript mounts the overlay in the task's new mount namespace, moves
// into it and execs the task's argv unchanged ("$@" after the four paths).
// A fixed text: every path is an argument, never part of the script.
const overlayScript = `mount -t overlay jobshift-task -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" && cd "$4" || {
	echo "jobshift: cannot mount the task's private working directory $4 (overlay of $1)" >&2
	exit 127
}
shift 4
exec "$@"`

// privateDir is the task's private working directory in attempt a: the same
// path for every start of the attempt (so PAI_WORK_DIR does not change on an
// in-place restart, as the image WORKDIR did not).
func privateDir(taskDir string, attempt int) string {
	return filepath.Join(startDir(taskDir, attempt, 0), "wd")
}

// overlaySafe: mount(8) options are comma-separated and overlay splits lower
// directories at ':', so such paths cannot be passed (links are used then).
func overlaySafe(paths ...string) bool {
	for _, p := range paths {
		if strings.ContainsAny(p, ",:\\\"'\n") {
			return false
		}
	}
	return true
}

// probeOverlay checks, in a throwaway mount namespace, that an overlay of
// shared can be mounted with its upper layer under runDir (the file system
// the tasks' layers will live on). It needs root (CAP_SYS_ADMIN), the
// overlay file system, mount(8), and a run directory on a file system that
// can hold an upper layer (not overlayfs itself on older kernels).
func probeOverlay(shared, runDir string) error {
	if os.Geteuid() != 0 {
		return errors.New("not root")
	}
	if !overlaySafe(shared, runDir) {
		return errors.New("a path holds a character mount options cannot carry (, : \\ \" ' newline)")
	}
	tmp, err := os.MkdirTemp(runDir, ".overlay-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	up, wk, mnt := filepath.Join(tmp, "u"), filepath.Join(tmp, "w"), filepath.Join(tmp, "m")
	for _, d := range []string{up, wk, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	cmd := exec.Command("/bin/sh", "-c", overlayScript, "jobshift-overlay", shared, up, wk, mnt, "/bin/sh", "-c", "test -w .")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	cmd.Dir = shared
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// workModeFor picks the mode for a run directory once, and says so when
// overlays cannot be used.
func (d *Driver) workModeFor(shared, runDir string) workMode {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.modes == nil {
		d.modes = map[string]workMode{}
	}
	key := shared + "\x00" + runDir
	if m, ok := d.modes[key]; ok {
		return m
	}
	m := workOverlay
	if d.opts.work != "" {
		m = d.opts.work
	} else if err := probeOverlay(shared, runDir); err != nil {
		m = workLinks
		fmt.Fprintf(d.opts.Warnings, "note: tasks get private working directories of symlinks to %s (an overlay mount is not possible here: %v); "+
			"writing through a link (into an existing file or a linked sub-directory) reaches the shared directory\n", shared, err)
	}
	d.modes[key] = m
	return m
}

// prepareWorkDir makes what one start of a task needs for its private
// directory and returns the argv and directory to exec: in overlay mode the
// argv is wrapped by overlayScript (the user's argv follows unchanged).
func prepareWorkDir(mode workMode, spec *taskSpec, argv []string, start string) ([]string, string, error) {
	if spec.Shared == "" || spec.Dir == spec.Shared {
		return argv, spec.Dir, nil
	}
	if err := os.MkdirAll(spec.Dir, 0o755); err != nil {
		return nil, "", err
	}
	if mode == workOverlay {
		// The wrapper shell would exec the program; checking first keeps
		// the "cannot start task" error (127) of a direct start.
		if err := checkTaskProgram(spec, argv, spec.Shared); err != nil {
			return nil, "", err
		}
		up, wk := filepath.Join(start, "files"), filepath.Join(start, ".overlay-work")
		for _, d := range []string{up, wk} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, "", err
			}
		}
		wrapped := append([]string{"/bin/sh", "-c", overlayScript, "jobshift-overlay", spec.Shared, up, wk, spec.Dir}, argv...)
		// The shell starts in the shared directory; the script moves into
		// the mounted private one.
		return wrapped, spec.Shared, nil
	}
	if err := linkEntries(spec.Shared, spec.Dir); err != nil {
		return nil, "", err
	}
	return argv, spec.Dir, nil
}

// linkEntries puts a symlink in dir for every entry of shared that dir does
// not have yet (a restart finds its earlier links and files in place).
func linkEntries(shared, dir string) error {
	ents, err := os.ReadDir(shared)
	if err != nil {
		return err
	}
	for _, e := range ents {
		dst := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join(shared, e.Name()), dst); err != nil {
			return err
		}
	}
	return nil
}

// checkProgram reports what exec would: a program name lookPath did not
// resolve is not on the task's PATH; a path (relative ones from dir, which
// the private directory shows) must be an executable file.
func checkProgram(argv []string, dir string) error {
	if len(argv) == 0 {
		return errors.New("no program")
	}
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		return fmt.Errorf("exec: %q: %w", prog, exec.ErrNotFound)
	}
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(dir, prog)
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return fmt.Errorf("exec: %q: %w", argv[0], err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("exec: %q: permission denied", argv[0])
	}
	return nil
}
