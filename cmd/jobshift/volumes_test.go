package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateNamesUnmappedVolumes: validate -to names every volume no
// site rule maps, located; with the rule it is quiet and explain says
// where the volume comes from (the user's path).
func TestValidateNamesUnmappedVolumes(t *testing.T) {
	t.Setenv("JOBSHIFT_CONFIG", "")
	job := filepath.Join("..", "..", "integration", "testdata", "view", "pai-storage.yaml")
	var out, errOut bytes.Buffer
	if code := runValidate([]string{"-to", "local", job}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "pai-storage.yaml:20:7: warning: Volume without a site rule") || !strings.Contains(errOut.String(), `volume "home" { path =`) {
		t.Errorf("no located warning naming the rule:\n%s", errOut.String())
	}
	homes := t.TempDir() // the site's shared home tree
	if err := os.Mkdir(filepath.Join(homes, "alice"), 0o755); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "site.hcl")
	if err := os.WriteFile(site, []byte(`volume "ho*" { path = "`+homes+`/${user}" }`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := runValidate([]string{"-to", "local", "-config", site, "-user", "alice", job}, &out, &errOut); code != 0 || strings.Contains(errOut.String(), "site rule") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := runExplain([]string{"-config", site, "-user", "alice", job}, &out, &errOut); code != 0 {
		t.Fatalf("explain exit %d: %s", code, errOut.String())
	}
	if want := `worker: home (storage) at /userhome: site rule volume "ho*" (` + site + `:1), ` + homes + `/alice on the nodes`; !strings.Contains(out.String(), want) {
		t.Errorf("explain lacks %q:\n%s", want, out.String())
	}
}

// TestExplainEmptyDirs: explain says what an emptyDir is on every target:
// scratch every user may write, a memory one a tmpfs of its sizeLimit.
func TestExplainEmptyDirs(t *testing.T) {
	isolate(t)
	for file, want := range map[string]string{
		"init-memory.yaml":      "  master: fast (emptyDir) at /fast: per-task scratch writable by every user, a tmpfs of 16 MiB (sizeLimit)\n",
		"emptydir-nonroot.yaml": "  master: cache (emptyDir) at /cache: per-task scratch writable by every user (0777, as the kubelet makes it)\n",
	} {
		out, code := runCLI(t, []string{"explain", filepath.Join("..", "..", "integration", "testdata", "view", file)}, "")
		if code != 0 || !strings.Contains(out, "\nVolumes:\n"+want) {
			t.Errorf("%s: exit %d, want %q under Volumes:\n%s", file, code, want, out)
		}
	}
}
