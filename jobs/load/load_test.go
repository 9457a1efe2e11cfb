package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// fakeReaders replaces the real readers for one test, recording what they
// were given.
func fakeReaders(t *testing.T, r map[Family]reader) {
	t.Helper()
	saved := readers
	readers = r
	t.Cleanup(func() { readers = saved })
}

func TestReadDispatch(t *testing.T) {
	var got []string
	rec := func(name string) reader {
		return func(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
			got = append(got, name+" "+opts.Path+" "+opts.Dialect)
			return &jobs.Job{Name: name}, nil
		}
	}
	fakeReaders(t, map[Family]reader{FamilyPAI: rec("pai"), FamilyKubeflow: rec("kubeflow")})
	cases := map[string]struct {
		src, dialect string
		want         string
		warnings     int
	}{
		"v1":                        {`{"jobName": "x"}`, "", "pai f ", 0},
		"v1 leinao":                 {`{"jobName": "x"}`, "leinao", "pai f leinao", 0},
		"v2":                        {"protocolVersion: 2\n", "", "pai f ", 0},
		"tfjob":                     {"kind: TFJob\n", "", "kubeflow f ", 0},
		"dialect on kubeflow warns": {"kind: PyTorchJob\n", "leinao", "kubeflow f leinao", 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got = nil
			job, diags := Read([]byte(tc.src), jobs.ReadOptions{Path: "f", Dialect: tc.dialect})
			if job == nil || diags.HasErrors() || len(diags) != tc.warnings {
				t.Fatalf("job %v, diags %s", job, diags.Error())
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("dispatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadUndetected(t *testing.T) {
	fakeReaders(t, map[Family]reader{}) // no reader may be called
	cases := map[string]struct {
		src     string
		summary string
		line    int
	}{
		"empty":         {"", "No job in file", 1},
		"comments only": {"# kind: TFJob\n\n# x\n", "No job in file", 1},
		"deployment":    {"apiVersion: apps/v1\nkind: Deployment\n", "Not a training job jobshift reads", 2},
		"unknown":       {"\n\nname: x\ntaskroles: []\n", "Unknown job format", 3},
		"json array":    {"[]", "Unknown job format", 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job, diags := Read([]byte(tc.src), jobs.ReadOptions{Path: "f.yaml"})
			if job != nil || len(diags) != 1 {
				t.Fatalf("job %v, diags %s", job, diags.Error())
			}
			d := diags[0]
			if d.Severity != hcl.DiagError || d.Summary != tc.summary || d.Subject == nil ||
				d.Subject.Filename != "f.yaml" || d.Subject.Start.Line != tc.line {
				t.Errorf("got %s at %v, want error %q at line %d", d.Summary, d.Subject, tc.summary, tc.line)
			}
			if !strings.Contains(d.Detail, "OpenPAI v1") || !strings.Contains(d.Detail, "PyTorchJob") {
				t.Errorf("detail does not say what jobshift reads: %s", d.Detail)
			}
		})
	}
}

func TestReaderPanicBecomesDiagnostic(t *testing.T) {
	fakeReaders(t, map[Family]reader{FamilyPAI: func([]byte, jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
		var m map[string]int
		m["boom"]++ // nil map write
		return nil, nil
	}})
	job, diags := Read([]byte(`{"jobName": "x"}`), jobs.ReadOptions{Path: "p.json"})
	if job != nil || len(diags) != 1 || diags[0].Summary != InternalErrorSummary || diags[0].Subject.Filename != "p.json" {
		t.Fatalf("job %v, diags %s", job, diags.Error())
	}
}

func TestReaderNilJobWithoutError(t *testing.T) {
	fakeReaders(t, map[Family]reader{FamilyPAI: func([]byte, jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{jobs.Warnf(jobs.Pos{File: "p", Line: 1, Col: 1}, "w", "")}
	}})
	job, diags := Read([]byte(`{"jobName": "x"}`), jobs.ReadOptions{Path: "p"})
	if job != nil || !diags.HasErrors() || diags[len(diags)-1].Summary != InternalErrorSummary {
		t.Fatalf("job %v, diags %s", job, diags.Error())
	}
}

func TestLoadFileAndStdin(t *testing.T) {
	var paths []string
	fakeReaders(t, map[Family]reader{FamilyPAI: func(src []byte, opts jobs.ReadOptions) (*jobs.Job, hcl.Diagnostics) {
		paths = append(paths, opts.Path+":"+string(src))
		return &jobs.Job{}, nil
	}})
	dir := t.TempDir()
	f := filepath.Join(dir, "job.json")
	if err := os.WriteFile(f, []byte(`{"jobName":"a"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	StdinReader = strings.NewReader(`{"jobName":"b"}`)
	defer func() { StdinReader = os.Stdin }()
	if _, diags := Load(f, jobs.ReadOptions{}); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if _, diags := Load("-", jobs.ReadOptions{}); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := []string{f + `:{"jobName":"a"}`, `-:{"jobName":"b"}`}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, diags := Load(filepath.Join(dir, "missing.json"), jobs.ReadOptions{})
	if !diags.HasErrors() || diags[0].Summary != "Cannot read job file" || diags[0].Subject.Filename != filepath.Join(dir, "missing.json") {
		t.Errorf("missing file: %s", diags.Error())
	}
}

// FuzzRead runs detection and the real readers: whatever the input, the
// result is a job or located errors, never a panic (which Read turns into
// an InternalErrorSummary diagnostic).
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"jobName": "x", "image": "i", "taskRoles": [{"name": "a", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 100, "command": "true"}]}`,
		"protocolVersion: 2\nname: x\ntype: job\ntaskRoles:\n  a:\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [\"true\"]\nprerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\n",
		"apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: x}\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers: [{name: tensorflow, image: tf}]\n",
		"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: x}\nspec:\n  pytorchReplicaSpecs:\n    Master:\n      replicas: 1\n      template:\n        spec:\n          containers: [{name: pytorch, image: pt}]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		job, diags := Read(src, jobs.ReadOptions{Path: "fuzz"})
		for _, d := range diags {
			if d.Summary == InternalErrorSummary {
				t.Fatalf("%s", d.Detail)
			}
			if d.Severity == hcl.DiagError && (d.Subject == nil || d.Subject.Start.Line < 1) {
				t.Errorf("error without a line: %s: %s", d.Summary, d.Detail)
			}
		}
		if job == nil && !diags.HasErrors() {
			t.Error("no job and no error")
		}
	})
}
