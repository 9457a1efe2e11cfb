package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/internal/otheruser"
	"github.com/jobshift/jobshift/siteconfig"
)

// writePlugin puts a jobshift-driver-evil in dir that leaves proof of
// having run.
func writePlugin(t *testing.T, dir, proof string) string {
	t.Helper()
	path := filepath.Join(dir, BinaryPrefix+"evil")
	if err := os.WriteFile(path, []byte("#!/bin/sh\ntouch "+proof+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o755)
	return path
}

// A plugin directory another user owns or can write (a shared /tmp path,
// a world-writable project directory): whatever binary is there would run
// as the user starting jobshift. It is not run, and the reason is given.
func TestPluginInOpenDirNotRun(t *testing.T) {
	other := otheruser.Get(t)
	shared := otheruser.SharedDir(t)
	proof := filepath.Join(t.TempDir(), "proof")
	open := filepath.Join(shared, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	writePlugin(t, open, proof)
	theirs := filepath.Join(shared, "theirs")
	other.Sh(t, "mkdir -m 755 "+theirs+" && printf '#!/bin/sh\\ntouch "+proof+"\\n' >"+theirs+"/"+BinaryPrefix+"evil && chmod 755 "+theirs+"/"+BinaryPrefix+"evil")
	for dir, want := range map[string]string{open: "writable by other users", theirs: "belongs to uid"} {
		_, err := OpenDriver("evil", []string{dir}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal %q", dir, err, want)
		}
		if _, err := os.Stat(proof); err == nil {
			t.Fatalf("%s: the plugin ran", dir)
		}
	}
}

// A relative plugins.dirs entry is the config file's directory's, not the
// current directory's.
func TestPluginDirsRelativeToConfig(t *testing.T) {
	site := &siteconfig.Config{Path: "/etc/jobshift/jobshift.hcl", Plugins: &siteconfig.PluginsConfig{Dirs: []string{"plugins", "/opt/p"}}}
	got := SearchDirs("", site)
	want := []string{"/etc/jobshift/plugins", "/opt/p"}
	if len(got) < 2 || strings.Join(got[len(got)-2:], " ") != strings.Join(want, " ") {
		t.Errorf("search dirs %v, want to end with %v", got, want)
	}
}

// A plugin the site pins runs only with the pinned digest.
func TestPluginPinnedDigest(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	proof := filepath.Join(dir, "proof")
	path := writePlugin(t, dir, proof)
	sum, err := fileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	pin := func(s string) *siteconfig.Config {
		return &siteconfig.Config{Plugins: &siteconfig.PluginsConfig{SHA256: map[string]string{BinaryPrefix + "evil": s}}}
	}
	if r := unsafeReason(path, pin(sum)); r != "" {
		t.Errorf("the pinned digest is refused: %s", r)
	}
	other := strings.Repeat("0", 64)
	if _, err := OpenSiteDriver("evil", []string{dir}, pin(other), nil); err == nil || !strings.Contains(err.Error(), "pins "+other) {
		t.Errorf("another digest: %v, want a refusal", err)
	}
	if _, err := os.Stat(proof); err == nil {
		t.Fatal("a plugin with another digest ran")
	}
}
