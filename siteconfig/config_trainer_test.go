package siteconfig

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrainerRuntimeDirs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.yaml", "a.yml", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := ParseConfig([]byte("trainer {\n  runtime_dirs = [\""+dir+"\"]\n}\n"), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := cfg.Trainer.RuntimeFiles()
	if len(got) != 2 || filepath.Base(got[0]) != "a.yml" || filepath.Base(got[1]) != "b.yaml" {
		t.Errorf("runtime files %v", got)
	}
	if _, diags := ParseConfig([]byte("trainer {\n  runtime_dirs = [\"rel\"]\n}\n"), "site.hcl"); !diags.HasErrors() {
		t.Error("a relative runtime directory is accepted")
	}
}
