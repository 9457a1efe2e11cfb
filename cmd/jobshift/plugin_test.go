package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/translate/completion"

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

	// The plugin's own warnings cross the wire and are counted and
	// printed, located, as a built-in driver's are (validate -to).
	out.Reset()
	errb.Reset()
	if code := realMain([]string{"validate", "-to", "example", "-plugin-dir", dir, file}, &out, &errb); code != 0 {
		t.Fatalf("validate -to example: exit %d\n%s", code, errb.String())
	}
	printed := strings.Count(errb.String(), ": warning: ")
	if !strings.Contains(errb.String(), file+":10:10: warning: Image not run") ||
		!strings.Contains(out.String(), fmt.Sprintf(", %d warning", printed)) {
		t.Errorf("validate -to example does not print and count the plugin's warning:\nstdout %q\nstderr:\n%s", out.String(), errb.String())
	}

	out.Reset()
	errb.Reset()
	if code := realMain([]string{"run", "-to", "example", "-plugin-dir", dir, "-plain", file}, &out, &errb); code != 0 {
		t.Fatalf("run -to example: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	checkPluginStatus(t, dir, out.String(), file)
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

// checkPluginStatus: `status` on an example handle — printed by run, in a
// process whose plugin process is not the one that ran the job — returns
// a snapshot at once, in the JSON shape of every target; so does it for a
// job submitted with -detach (whose plugin process ended with run), until
// its verdict.
func checkPluginStatus(t *testing.T, dir, runOut, file string) {
	t.Helper()
	status := func(handle string) drivers.Status {
		t.Helper()
		var out, errb bytes.Buffer
		if code := realMain([]string{"status", "-plugin-dir", dir, "-json", handle}, &out, &errb); code != 0 && code != 1 {
			t.Fatalf("status -json %s: exit %d\n%s", handle, code, errb.String())
		}
		var st drivers.Status
		if err := json.Unmarshal(out.Bytes(), &st); err != nil {
			t.Fatalf("status -json %s: %v\n%s", handle, err, out.String())
		}
		return st
	}
	handleOf := func(out string) string {
		m := regexp.MustCompile(`submitted example job (example:\S+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("run printed no handle:\n%s", out)
		}
		return m[1]
	}
	h := handleOf(runOut)
	st := status(h)
	if st.Handle != h || st.Phase != completion.PhaseSucceeded || st.Name == "" || st.Submitted.IsZero() || len(st.Tasks) == 0 {
		t.Errorf("status of a finished run: %+v", st)
	}
	for _, ts := range st.Tasks {
		if ts.State != completion.Succeeded {
			t.Errorf("task %s-%d is %s, want succeeded", ts.Role, ts.Index, ts.State)
		}
	}
	var out, errb bytes.Buffer
	if code := realMain([]string{"run", "-to", "example", "-plugin-dir", dir, "-detach", file}, &out, &errb); code != 0 {
		t.Fatalf("run -detach -to example: exit %d\n%s", code, errb.String())
	}
	h = handleOf(out.String() + errb.String())
	deadline := time.Now().Add(2 * time.Minute)
	for st = status(h); !st.Ended(); st = status(h) {
		if st.Phase != completion.PhaseRunning {
			t.Fatalf("detached run: phase %s before its verdict, want running", st.Phase)
		}
		if time.Now().After(deadline) {
			t.Fatalf("detached run still not ended: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st.Phase != completion.PhaseSucceeded || len(st.Tasks) == 0 {
		t.Errorf("detached run judged from its files: %+v", st)
	}
	for _, ts := range st.Tasks {
		if ts.State != completion.Succeeded {
			t.Errorf("detached task %s-%d is %s (%s), want succeeded", ts.Role, ts.Index, ts.State, ts.Message)
		}
	}
}
