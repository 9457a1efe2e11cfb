package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/plugin/example"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
)

// TestExternalPluginCLI builds plugin/example as a real plugin binary and
// drives it through the CLI: plugins lists it, convert writes exactly what
// the driver renders in-process, run ends the job as the platform would.
func TestExternalPluginCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin binary")
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "jobshift-driver-example"), "../../plugin/example/cmd/jobshift-driver-example")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example plugin: %v\n%s", err, out)
	}
	t.Setenv("JOBSHIFT_PLUGIN_PATH", dir)
	t.Setenv("JOBSHIFT_CONFIG", filepath.Join(dir, "none.hcl")) // no operator config leaks in
	if err := os.WriteFile(filepath.Join(dir, "none.hcl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir("../..") // the examples' commands name examples/mesh.py

	var out, errb bytes.Buffer
	if code := realMain([]string{"plugins"}, &out, &errb); code != 0 {
		t.Fatalf("plugins: exit %d\n%s", code, errb.String())
	}
	if !strings.Contains(out.String(), "example") || !strings.Contains(out.String(), example.Version) {
		t.Errorf("plugins does not list the example plugin with its version:\n%s", out.String())
	}

	// From here on the plugin is found through -plugin-dir alone.
	t.Setenv("JOBSHIFT_PLUGIN_PATH", "")
	const file = "examples/pai-v2-ddp.yaml"
	outDir := t.TempDir()
	out.Reset()
	errb.Reset()
	if code := realMain([]string{"convert", "-to", "example", "-plugin-dir", dir, "-user", "alice", "-o", outDir, file}, &out, &errb); code != 0 {
		t.Fatalf("convert -to example: exit %d\n%s", code, errb.String())
	}
	job, diags := load.Load(file, jobs.ReadOptions{Path: file})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan, diags := translate.Build(job, &siteconfig.Config{}, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want, err := example.New(t.TempDir()).Render(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range want.Files {
		got, err := os.ReadFile(filepath.Join(outDir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s through the plugin differs from in-process:\n--- in-process\n%s\n--- plugin\n%s", f.Name, f.Data, got)
		}
	}

	out.Reset()
	errb.Reset()
	if code := realMain([]string{"run", "-to", "example", "-plugin-dir", dir, "-plain", file}, &out, &errb); code != 0 {
		t.Fatalf("run -to example: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	// No plugin process outlives the commands that started it.
	if left := processesOf(filepath.Join(dir, "jobshift-driver-example")); len(left) > 0 {
		t.Errorf("plugin processes left running: %v", left)
	}
}

// processesOf lists the live processes whose executable path is exe.
func processesOf(exe string) []string {
	var pids []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && strings.HasPrefix(string(b), exe+"\x00") {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}
