package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/otheruser"
)

// Another user of the machine prepares the directory a run will use: the
// help's own `-run-dir /tmp/r1`, made by them first, or ./.jobshift/runs in
// a project directory they can write. Either way they could swap the files
// the tasks run (ssh/sshemu.sh, the programs): the run is refused, with
// the reason, before anything is written there.
func TestRunDirOfAnotherUser(t *testing.T) {
	other := otheruser.Get(t)
	shared := otheruser.SharedDir(t)
	planted := filepath.Join(shared, "r1")
	other.Sh(t, "mkdir -m 777 "+planted)
	project := filepath.Join(shared, "project")
	other.Sh(t, "mkdir -m 777 "+project)
	mine := filepath.Join(shared, "mine")
	os.Mkdir(mine, 0o777)
	os.Chmod(mine, 0o777)
	for _, tc := range []struct {
		name, dir string
		named     bool
		want      string
	}{
		{"-run-dir made by them", planted, true, "owned by uid"},
		{"default runs in their project", filepath.Join(project, ".jobshift", "runs", "job-1"), false, "belongs to uid"},
		{"-run-dir of mine open to all", mine, true, "writable by other users"},
		{"-run-dir under an open directory of mine", filepath.Join(mine, "r"), true, "writable by other users"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := claimRunDir(tc.dir, tc.named)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("claimRunDir(%s) = %s, %v; want a refusal %q", tc.dir, got, err, tc.want)
			}
			if _, err := os.Lstat(filepath.Join(tc.dir, claimMarker)); err == nil {
				t.Errorf("the refused directory was written to")
			}
		})
	}
}

// A run directory and what jobshift writes in it are the user's alone:
// task output can hold anything the job prints.
func TestRunDirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs", "job")
	got, err := claimRunDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	b := newBroker(got)
	b.file.Close()
	writeRunInfo(got, "job", "u")
	for path, want := range map[string]os.FileMode{
		got:                             0o700,
		filepath.Dir(got):               0o700,
		filepath.Join(got, claimMarker): 0o600,
		filepath.Join(got, runInfoFile): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
}

// Another user of the machine reads nothing of a run: not its task output,
// not a program file filled in with secrets, not its identity file.
func TestRunDirUnreadableByOthers(t *testing.T) {
	other := otheruser.Get(t)
	shared := otheruser.SharedDir(t)
	got, err := claimRunDir(filepath.Join(shared, "runs", "job"), false)
	if err != nil {
		t.Fatal(err)
	}
	writeRunInfo(got, "job", "u")
	task := filepath.Join(got, "attempt-1", "worker-0")
	if err := os.MkdirAll(task, 0o700); err != nil {
		t.Fatal(err)
	}
	pf := &programFile{Path: "user.sh", Data: []byte("login --token s3cr3t\n"), Secret: true}
	if _, _, err := pf.write(nil, task); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(task, "user.sh"), filepath.Join(got, runInfoFile), got} {
		if out, err := other.Command("cat", f).CombinedOutput(); err == nil || strings.Contains(string(out), "s3cr3t") {
			t.Errorf("another user read %s: %s", f, out)
		}
	}
	if out, err := other.Command("ls", got).CombinedOutput(); err == nil {
		t.Errorf("another user listed the run directory: %s", out)
	}
}
