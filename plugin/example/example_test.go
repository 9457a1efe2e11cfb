package example_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/drivers"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/jobs/diag"
	"github.com/jobshift/jobshift/jobs/load"
	"github.com/jobshift/jobshift/plugin"
	"github.com/jobshift/jobshift/plugin/example"
	"github.com/jobshift/jobshift/siteconfig"
	"github.com/jobshift/jobshift/translate"
	"github.com/jobshift/jobshift/translate/completion"
)

// outcome is everything a user sees of a run: the result, every task's
// final state and its output.
type outcome struct {
	Result drivers.Result
	States map[string]completion.State
	Logs   map[string]string
}

func plan(t *testing.T, path string) *translate.Plan {
	t.Helper()
	job, diags := load.Load(path, jobs.ReadOptions{Path: path})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := translate.Build(job, &siteconfig.Config{}, nil, "alice")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

func runJob(t *testing.T, d drivers.Driver, p *translate.Plan) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	h, err := d.Submit(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// Whatever happens below, no process outlives the test.
	defer d.Stop(context.Background(), h)
	ch, err := d.Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	out := outcome{States: map[string]completion.State{}, Logs: map[string]string{}}
	for e := range ch {
		if e.Task != nil {
			out.States[e.Task.Role+"-"+itoa(e.Task.Index)] = e.State
		}
		if e.Final != nil {
			out.Result = *e.Final
		}
	}
	for _, r := range p.Job.Roles {
		for i := 0; i < r.Instances; i++ {
			rc, err := d.Logs(ctx, h, drivers.LogOptions{Task: &jobs.TaskRef{Role: r.Name, Index: i}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			out.Logs[r.Name+"-"+itoa(i)] = string(b)
		}
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestPluginMatchesInProcess builds the example driver as a real plugin
// binary and checks that rendering and running a job through it gives
// exactly what the same driver gives in-process.
func TestPluginMatchesInProcess(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "jobshift-driver-example"), "./cmd/jobshift-driver-example")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	t.Chdir("../..") // the examples' commands name examples/mesh.py
	ext, err := plugin.OpenDriver("example", []string{bin}, nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	local := example.New(t.TempDir())

	for _, file := range []string{"examples/pai-v2-ddp.yaml", "examples/pai-v1-ps-worker.json", "examples/tfjob-mesh.yaml"} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p := plan(t, file)
			inArt, err := local.Render(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			outArt, err := ext.Render(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(inArt, outArt); diff != "" {
				t.Errorf("Render differs (-in-process +plugin):\n%s", diff)
			}
			in := runJob(t, local, p)
			if in.Result.Phase != completion.PhaseSucceeded {
				t.Fatalf("in-process run: %+v\nlogs: %v", in.Result, in.Logs)
			}
			out := runJob(t, ext, p)
			if diff := cmp.Diff(in.Result, out.Result); diff != "" {
				t.Errorf("result differs (-in-process +plugin):\n%s", diff)
			}
			// Tasks that ended by themselves in both runs must agree on
			// state and output; a task stopped when the verdict fired may
			// have got more or less far in one run than in the other.
			for task, st := range in.States {
				if !st.Terminal() {
					t.Errorf("in-process: %s ended %s: every task must end terminal", task, st)
				}
				if out.States[task] != st || st == completion.Stopped {
					continue
				}
				if in.Logs[task] != out.Logs[task] {
					t.Errorf("%s output differs:\n--- in-process\n%s--- plugin\n%s", task, in.Logs[task], out.Logs[task])
				}
			}
			if len(in.States) != len(out.States) {
				t.Errorf("tasks seen: in-process %v, plugin %v", in.States, out.States)
			}
		})
	}
	// A refusal crosses the wire as located diagnostics, every role's.
	t.Run("refusal", func(t *testing.T) {
		p := plan(t, "examples/tfjob-mesh.yaml")
		for _, r := range p.Job.Roles {
			r.Command.Command = nil
		}
		// The plan is compiled by Build: build it again from the changed job.
		p, diags := translate.Build(p.Job, &siteconfig.Config{}, nil, "alice")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, inErr := local.Render(context.Background(), p)
		_, outErr := ext.Render(context.Background(), p)
		in, _ := diag.Of(inErr)
		out, _ := diag.Of(outErr)
		if len(in) != len(p.Job.Roles) || in[0].Subject == nil || in[0].Subject.Start.Line == 0 {
			t.Fatalf("in-process: %v, want one located diagnostic per role", inErr)
		}
		if diff := cmp.Diff(in.Error(), out.Error()); diff != "" {
			t.Errorf("diagnostics differ (-in-process +plugin):\n%s", diff)
		}
	})
}

// TestRefusesWhatItDoesNotRun: the template driver refuses, located, the
// steps it does not run and the secret values it would write into its
// scripts, out of process exactly as in process.
func TestRefusesWhatItDoesNotRun(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "jobshift-driver-example"), "./cmd/jobshift-driver-example")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the plugin: %v\n%s", err, out)
	}
	ext, err := plugin.OpenDriver("example", []string{bin}, nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	local := example.New(t.TempDir())
	cases := map[string]string{
		"../../examples/pytorchjob-init-secret.yaml": "Secret value not delivered",
		"../../examples/trainjob-initializer.yaml":   "Step order not kept",
		"../../examples/volcano-pytorch-ddp.yaml":    "File not placed",
	}
	for file, want := range cases {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p := plan(t, file)
			_, inErr := local.Render(context.Background(), p)
			_, outErr := ext.Render(context.Background(), p)
			in, ok := diag.Of(inErr)
			if !ok || in[0].Summary != want || in[0].Subject == nil || in[0].Subject.Start.Line == 0 {
				t.Fatalf("in-process: %v, want a located %q", inErr, want)
			}
			if outErr == nil || inErr.Error() != outErr.Error() {
				t.Errorf("plugin: %v, want %v", outErr, inErr)
			}
		})
	}
}
