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

func TestTrainerStorageURI(t *testing.T) {
	cfg, diags := ParseConfig([]byte(`trainer {
  storage_uri "hf://tatsu-lab/*" { path = "/site/hf/tatsu/*" }
  storage_uri "s3://bucket/data" { path = "/site/s3/data" }
}
`), "site.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for uri, want := range map[string]string{"hf://tatsu-lab/alpaca": "/site/hf/tatsu/alpaca", "s3://bucket/data": "/site/s3/data", "hf://other/x": ""} {
		got, ok := cfg.Trainer.StoragePath(uri)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", uri, got, ok, want)
		}
	}
	if _, diags := ParseConfig([]byte("trainer {\n  storage_uri \"hf://*\" { path = \"rel\" }\n}\n"), "site.hcl"); !diags.HasErrors() {
		t.Error("a relative storage path is accepted")
	}
}
