package plugin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	_ "github.com/jobshift/jobshift/drivers/nomad" // registers "nomad"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// buildJobshift builds the jobshift binary once per test run.
func buildJobshift(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "jobshift")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/jobshift")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build jobshift: %v\n%s", err, out)
	}
	return bin
}

// TestBuiltinAsPlugin serves the built-in nomad driver out of process (a
// jobshift binary started as jobshift-driver-nomad) and checks that every
// example renders to exactly the in-process artifact.
func TestBuiltinAsPlugin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the jobshift binary")
	}
	dir := t.TempDir()
	bin := buildJobshift(t, dir)
	if err := os.Symlink(bin, filepath.Join(dir, BinaryPrefix+"nomad")); err != nil {
		t.Fatal(err)
	}
	ext, err := OpenDriver("nomad", []string{dir}, nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	in, err := drivers.New("nomad", drivers.Config{Site: &siteconfig.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../examples/*.*")
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".json" && ext != ".yaml" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			job, diags := load.Load(f, jobs.ReadOptions{Path: f})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			p, diags := translate.Build(job, &siteconfig.Config{}, nil, "alice")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			want, werr := in.Render(context.Background(), p)
			got, gerr := ext.Render(context.Background(), p)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("errors differ: in-process %v, plugin %v", werr, gerr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Render differs (-in-process +plugin):\n%s", diff)
			}
		})
	}
}
