package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/internal/testcorpus"
	"github.com/jobshift/jobshift/jobs"
)

// The JSON a script reads is checked against the schema the README
// documents: these structs are written from the README, not taken from
// the code, and decoding rejects any field they do not name.

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

type jsonDiag struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
	Range    *struct {
		Filename string  `json:"filename"`
		Start    jsonPos `json:"start"`
		End      jsonPos `json:"end"`
	} `json:"range"`
}

type jsonValidate struct {
	FormatVersion string     `json:"format_version"`
	Valid         bool       `json:"valid"`
	ErrorCount    int        `json:"error_count"`
	WarningCount  int        `json:"warning_count"`
	Diagnostics   []jsonDiag `json:"diagnostics"`
	Files         []struct {
		Path         string `json:"path"`
		Valid        bool   `json:"valid"`
		ErrorCount   int    `json:"error_count"`
		WarningCount int    `json:"warning_count"`
		Target       string `json:"target"`
		Format       string `json:"format"`
		Name         string `json:"name"`
		Roles        int    `json:"roles"`
		Tasks        int    `json:"tasks"`
	} `json:"files"`
}

type jsonPlugin struct {
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Protocol int      `json:"protocol"`
	Origin   string   `json:"origin"`
	OK       bool     `json:"ok"`
	Status   string   `json:"status"`
	Shadows  []string `json:"shadows"`
}

type jsonTask struct {
	Role     string `json:"role"`
	Index    int    `json:"index"`
	State    string `json:"state"`
	ExitCode int    `json:"exitCode"`
	Message  string `json:"message"`
}

type jsonStatus struct {
	Handle    string     `json:"handle"`
	Name      string     `json:"name"`
	User      string     `json:"user"`
	Phase     string     `json:"phase"`
	ExitCode  int        `json:"exitCode"`
	Reason    string     `json:"reason"`
	Attempt   int        `json:"attempt"`
	Submitted string     `json:"submitted"`
	Tasks     []jsonTask `json:"tasks"`
}

type jsonResult struct {
	Phase    string `json:"phase"`
	ExitCode int    `json:"exitCode"`
	Reason   string `json:"reason"`
	Attempts int    `json:"attempts"`
}

type jsonRunEvent struct {
	Type       string    `json:"type"`
	Time       string    `json:"time"`
	Handle     string    `json:"handle"`
	Target     string    `json:"target"`
	Diagnostic *jsonDiag `json:"diagnostic"`
	Event      *struct {
		Time    string `json:"time"`
		Attempt int    `json:"attempt"`
		Task    *struct {
			Role  string `json:"role"`
			Index int    `json:"index"`
		} `json:"task"`
		State    string      `json:"state"`
		ExitCode int         `json:"exitCode"`
		Message  string      `json:"message"`
		Final    *jsonResult `json:"final"`
	} `json:"event"`
	Message string      `json:"message"`
	Result  *jsonResult `json:"result"`
	Exit    *int        `json:"exit"`
}

// strictDecode decodes exactly one JSON value from s into v.
func strictDecode(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding into %T: %v\n%s", v, err, s)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", s)
	}
}

// runCLIOut runs realMain and returns stdout, stderr and the exit code.
func runCLIOut(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := realMain(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestValidateJSON(t *testing.T) {
	isolate(t)
	out, _, code := runCLIOut(t, "validate", "-json", "testdata/cli/tfjob-lossy.yaml", "testdata/cli/pai-v1.json")
	if code != exitInvalid {
		t.Errorf("exit %d, want 1", code)
	}
	var v jsonValidate
	strictDecode(t, out, &v)
	if v.FormatVersion != "1.0" || v.Valid || v.ErrorCount == 0 || len(v.Files) != 2 {
		t.Fatalf("document: %+v", v)
	}
	errs, warns := 0, 0
	for _, d := range v.Diagnostics {
		switch d.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		default:
			t.Errorf("severity %q", d.Severity)
		}
		if d.Range == nil || d.Range.Filename != "testdata/cli/tfjob-lossy.yaml" || d.Range.Start.Line < 1 || d.Range.Start.Column < 1 ||
			d.Range.End.Line < d.Range.Start.Line {
			t.Errorf("diagnostic %q has no usable range: %+v", d.Summary, d.Range)
		}
	}
	if errs != v.ErrorCount || warns != v.WarningCount {
		t.Errorf("counts %d/%d, diagnostics say %d/%d", v.ErrorCount, v.WarningCount, errs, warns)
	}
	f := v.Files[1]
	if diff := cmp.Diff([]any{"testdata/cli/pai-v1.json", true, "cifar10", 2, 4}, []any{f.Path, f.Valid, f.Name, f.Roles, f.Tasks}); diff != "" {
		t.Errorf("pai-v1.json entry (-want +got):\n%s", diff)
	}
	// The text form reports the same diagnostics.
	_, text, _ := runCLIOut(t, "validate", "testdata/cli/tfjob-lossy.yaml")
	for _, d := range v.Diagnostics {
		if loc := d.Range.Filename + ":" + itoa(d.Range.Start.Line) + ":" + itoa(d.Range.Start.Column) + ": " + d.Severity + ": " + d.Summary; !strings.Contains(text, loc) {
			t.Errorf("text output lacks %q", loc)
		}
	}
	// A command-line error is a diagnostic without a range, and exit 2.
	out, _, code = runCLIOut(t, "validate", "-json", "-dialect", "nope", "testdata/cli/pai-v1.json")
	v = jsonValidate{}
	strictDecode(t, out, &v)
	if code != exitUsage || v.Valid || len(v.Diagnostics) != 1 || v.Diagnostics[0].Range != nil {
		t.Errorf("bad -dialect: exit %d, %+v", code, v)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestExplainJSONDiagnostics(t *testing.T) {
	isolate(t)
	out, _, code := runCLIOut(t, "explain", "-format", "json", "-lossy", "testdata/cli/tfjob-lossy.yaml")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var v struct {
		jobs.Job
		Diagnostics []jsonDiag `json:"diagnostics"`
	}
	strictDecode(t, out, &v)
	if v.Name == "" || len(v.Roles) == 0 || len(v.Diagnostics) == 0 {
		t.Fatalf("job %q, %d roles, %d diagnostics", v.Name, len(v.Roles), len(v.Diagnostics))
	}
	for _, d := range v.Diagnostics {
		if d.Severity != "warning" || d.Range == nil || d.Range.Start.Line < 1 {
			t.Errorf("diagnostic: %+v", d)
		}
	}
	// An unreadable job: only its diagnostics, still JSON.
	out, _, code = runCLIOut(t, "explain", "-format", "json", "testdata/cli/tfjob-lossy.yaml")
	var only struct {
		Diagnostics []jsonDiag `json:"diagnostics"`
	}
	strictDecode(t, out, &only)
	if code != exitInvalid || len(only.Diagnostics) == 0 || only.Diagnostics[0].Severity != "error" {
		t.Errorf("exit %d, %+v", code, only)
	}
}

func TestPluginsJSON(t *testing.T) {
	isolate(t)
	t.Setenv("JOBSHIFT_PLUGIN_PATH", t.TempDir())
	out, _, code := runCLIOut(t, "plugins", "-json")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var ps []jsonPlugin
	strictDecode(t, out, &ps)
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
		if !p.OK || p.Origin != "built-in" || p.Protocol < 1 || p.Version == "" {
			t.Errorf("plugin %+v", p)
		}
	}
	if diff := cmp.Diff([]string{"local", "nomad", "nomad-json", "slurm"}, names); diff != "" {
		t.Errorf("drivers (-want +got):\n%s", diff)
	}
}

// run -json: one object per line, the handle first, the result last,
// task output kept off stdout.
func TestRunJSONEvents(t *testing.T) {
	isolate(t)
	t.Setenv("EXITER_CODE", "3")
	out, errOut, code := runCLIOut(t, "run", "-json", "-run-dir", t.TempDir(), "testdata/ops/exit.json")
	if code != 3 {
		t.Errorf("exit %d, want 3\n%s%s", code, out, errOut)
	}
	var evs []jsonRunEvent
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var e jsonRunEvent
		strictDecode(t, sc.Text(), &e)
		evs = append(evs, e)
	}
	if len(evs) < 3 {
		t.Fatalf("%d events:\n%s", len(evs), out)
	}
	if first := evs[0]; first.Type != "submitted" || first.Target != "local" || !strings.HasPrefix(first.Handle, "local:/") {
		t.Errorf("first event: %+v", first)
	}
	last := evs[len(evs)-1]
	if last.Type != "result" || last.Result == nil || last.Result.Phase != "failed" || last.Result.ExitCode != 3 || last.Exit == nil || *last.Exit != 3 {
		t.Errorf("last event: %+v", last)
	}
	sawTask := false
	for _, e := range evs[1 : len(evs)-1] {
		if e.Type != "event" || e.Event == nil {
			t.Errorf("middle event: %+v", e)
			continue
		}
		sawTask = sawTask || e.Event.Task != nil && e.Event.Task.Role == "main" && e.Event.State == "failed" && e.Event.ExitCode == 3
	}
	if !sawTask {
		t.Errorf("no failed event for main-0:\n%s", out)
	}
	if strings.Contains(out, "main-started") || !strings.Contains(errOut, "main-started") {
		t.Errorf("task output must go to stderr, not stdout:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

// validate -to slurm refuses exactly the corpus files convert -to slurm
// refuses (the issue counted 25 files "valid" but refused by convert).
func TestValidateToMatchesConvert(t *testing.T) {
	isolate(t)
	dir := testcorpus.Dir(t)
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if ext := filepath.Ext(p); err == nil && !d.IsDir() && (ext == ".json" || ext == ".yaml" || ext == ".yml") {
			files = append(files, p)
		}
		return nil
	})
	refused, checked := 0, 0
	for _, f := range files {
		if _, _, code := runCLIOut(t, "validate", "-lossy", f); code != exitOK {
			continue
		}
		checked++
		_, _, vcode := runCLIOut(t, "validate", "-lossy", "-to", "slurm", f)
		_, cerr, ccode := runCLIOut(t, "convert", "-lossy", "-to", "slurm", f)
		if (vcode == exitOK) != (ccode == exitOK) {
			t.Errorf("%s: validate -to slurm exit %d, convert -to slurm exit %d\n%s", f, vcode, ccode, cerr)
		}
		if ccode != exitOK {
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("no corpus file refused by slurm among %d: the check proves nothing", checked)
	}
	t.Logf("%d valid corpus files, %d refused by slurm", checked, refused)
}
