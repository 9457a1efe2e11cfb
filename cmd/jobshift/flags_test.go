package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/jobshift/jobshift/siteconfig"
)

// Commands that read one file (convert, run) call loadPlan without check:
// the options must still reach the reader.
func TestLoadPlanWithoutCheck(t *testing.T) {
	isolate(t)
	cases := map[string]struct {
		args     []string
		file     string
		wantErr  string // "" = no error
		wantWord string // in the job's first command
	}{
		"lossy reaches the reader":     {[]string{"-lossy"}, "testdata/cli/tfjob-lossy.yaml", "", ""},
		"without lossy it is an error": {nil, "testdata/cli/tfjob-lossy.yaml", "Secret not found", ""},
		"vars reach the reader":        {[]string{"-var", "steps=7"}, "testdata/cli/pai-v2.yaml", "", "--steps 7"},
		"bad option is reported":       {[]string{"-dialect", "x"}, "testdata/cli/pai-v2.yaml", "Unknown dialect", ""},
		"bad contract is reported":     {[]string{"-contract", "nope"}, "testdata/cli/pai-v2.yaml", "Unknown contract", ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var jf jobFlags
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			jf.register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			_, plan, diags := jf.loadPlan(tc.file, &siteconfig.Config{})
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Errorf("want error %q, got %s", tc.wantErr, diags.Error())
				}
				return
			}
			if diags.HasErrors() || plan == nil {
				t.Fatalf("errors: %s", diags.Error())
			}
			if got := plan.Job.Roles[0].Command.Script; !strings.Contains(got, tc.wantWord) {
				t.Errorf("command %q lacks %q", got, tc.wantWord)
			}
		})
	}
}

// Flags may follow positional arguments; "--" ends the flags, "-" is an
// argument (standard input).
func TestParseFlagsInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		to   string
		pos  []string
	}{
		{[]string{"job.yaml", "-to", "nomad"}, "nomad", []string{"job.yaml"}},
		{[]string{"-to", "slurm", "job.yaml"}, "slurm", []string{"job.yaml"}},
		{[]string{"a", "-to", "x", "b"}, "x", []string{"a", "b"}},
		{[]string{"-", "-to", "x"}, "x", []string{"-"}},
		{[]string{"a", "--", "-to", "x"}, "", []string{"a", "-to", "x"}},
		{[]string{"--", "-b"}, "", []string{"-b"}},
		{nil, "", nil},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		to := fs.String("to", "", "")
		if code, ok := parseFlags(fs, tc.args); !ok {
			t.Errorf("%q: stopped with %d", tc.args, code)
			continue
		}
		if *to != tc.to || !slices.Equal(fs.Args(), tc.pos) && len(fs.Args())+len(tc.pos) > 0 {
			t.Errorf("%q: -to %q args %q, want %q %q", tc.args, *to, fs.Args(), tc.to, tc.pos)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if code, ok := parseFlags(fs, []string{"a", "-nope"}); ok || code != exitUsage {
		t.Errorf("unknown flag after an argument: ok %v, code %d; want exit 2", ok, code)
	}
}
