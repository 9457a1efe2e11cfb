package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs/load"
)

// update rewrites golden files; shared by every golden test of package main.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// isolate makes the environment of a CLI test independent of the machine:
// no site config is found unless the test names one, and the user is fixed.
func isolate(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("JOBSHIFT_CONFIG", "")
	t.Setenv("USER", "tester")
}

// runCLI runs realMain in-process and renders exit code, stdout and stderr
// as one text for golden comparison.
func runCLI(t *testing.T, args []string, input string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	stdin = strings.NewReader(input)
	defer func() { stdin = os.Stdin }()
	load.StdinReader = stdin
	defer func() { load.StdinReader = os.Stdin }()
	code := realMain(args, &out, &errb)
	return fmt.Sprintf("$ jobshift %s\nexit: %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, out.String(), errb.String()), code
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", "cli", name+".golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it, then review it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
	}
}

// These cases do not depend on what the format readers make of a job: they
// cover the command-line plumbing, detection errors and the site config.
func TestCLIGolden(t *testing.T) {
	cases := map[string]struct {
		args  []string
		stdin string
		code  int
	}{
		"validate-no-args":         {[]string{"validate"}, "", 2},
		"validate-help":            {[]string{"validate", "-h"}, "", 0},
		"validate-bad-flag":        {[]string{"validate", "-nope", "x"}, "", 2},
		"validate-bad-options":     {[]string{"validate", "-dialect", "x", "-contract", "tf,horovod", "-user", "a b", "-var", "k=v", "testdata/cli/unknown.json"}, "", 2},
		"validate-secrets-missing": {[]string{"validate", "testdata/cli/pai-v2-auth.yaml"}, "", 1},
		"validate-secrets":         {[]string{"validate", "-secrets", "testdata/cli/secrets.yaml", "testdata/cli/pai-v2-auth.yaml"}, "", 0},
		"validate-secrets-stdin":   {[]string{"validate", "-secrets", "-", "testdata/cli/pai-v2-auth.yaml"}, "{\"user\": \"bob\", \"password\": \"x\"}", 0},
		"validate-secrets-bad":     {[]string{"validate", "-secrets", "testdata/cli/secrets-bad.yaml", "testdata/cli/pai-v2-auth.yaml"}, "", 1},
		"explain-json-secrets":     {[]string{"explain", "-format", "json", "-secrets", "testdata/cli/secrets.yaml", "testdata/cli/pai-v2-auth.yaml"}, "", 0},
		"validate-tfjob":           {[]string{"validate", "testdata/cli/tfjob-lossy.yaml"}, "", 1},
		"validate-tfjob-lossy":     {[]string{"validate", "-lossy", "testdata/cli/tfjob-lossy.yaml"}, "", 0},
		"explain-tfjob-site":       {[]string{"explain", "-lossy", "-config", "testdata/cli/site.hcl", "testdata/cli/tfjob-lossy.yaml"}, "", 0},
		// A contract the job cannot have is reported by validate (the
		// contract package's check), as run would refuse it.
		"validate-contract-misfit": {[]string{"validate", "-lossy", "-contract", "pai", "testdata/cli/tfjob-lossy.yaml"}, "", 1},
		"validate-stdin-twice":     {[]string{"validate", "-secrets", "-", "a.json", "-"}, "", 2},
		"validate-bad-var":         {[]string{"validate", "-var", "novalue", "x"}, "", 2},
		// Every file is reported, not only the first bad one.
		"validate-undetected": {[]string{"validate", "testdata/cli/comments.yaml", "testdata/cli/deployment.yaml", "testdata/cli/unknown.json", "testdata/cli/missing.json"}, "", 1},
		"validate-stdin":      {[]string{"validate", "-"}, "apiVersion: batch/v1\nkind: Job\n", 1},
		"validate-bad-config": {[]string{"validate", "-config", "testdata/cli/bad.hcl", "testdata/cli/deployment.yaml"}, "", 1},
		"validate-no-config":  {[]string{"validate", "-config", "testdata/cli/none.hcl", "testdata/cli/deployment.yaml"}, "", 1},
		// These run the real PAI reader on small files of ours.
		"validate-ok":            {[]string{"validate", "testdata/cli/pai-v1.json", "-"}, "protocolVersion: 2\nname: x\ntype: job\ntaskRoles:\n  a:\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [\"true\"]\nprerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\n", 0},
		"explain-pai-v1-site":    {[]string{"explain", "-config", "testdata/cli/site.hcl", "-contract", "tf", "-user", "alice", "testdata/cli/pai-v1.json"}, "", 0},
		"explain-pai-v2-var":     {[]string{"explain", "-var", "steps=5", "testdata/cli/pai-v2.yaml"}, "", 0},
		"explain-pai-v2-json":    {[]string{"explain", "-format", "json", "-"}, "protocolVersion: 2\nname: x\ntype: job\ntaskRoles:\n  a:\n    dockerImage: i\n    resourcePerInstance: {cpu: 1, memoryMB: 512, gpu: 0}\n    commands: [\"true\"]\nprerequisites:\n  - {name: i, type: dockerimage, uri: busybox}\n", 0},
		"explain-no-args":        {[]string{"explain"}, "", 2},
		"explain-two-files":      {[]string{"explain", "a", "b"}, "", 2},
		"explain-env-json":       {[]string{"explain", "-env", "-format", "json", "a"}, "", 2},
		"explain-topology-alone": {[]string{"explain", "-topology", "t.json", "a"}, "", 1},
		"explain-bad-format":     {[]string{"explain", "-format", "xml", "a"}, "", 2},
		"explain-undetected":     {[]string{"explain", "testdata/cli/deployment.yaml"}, "", 1},
		"explain-bad-config":     {[]string{"explain", "-config", "testdata/cli/bad.hcl", "testdata/cli/deployment.yaml"}, "", 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			got, code := runCLI(t, tc.args, tc.stdin)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			checkGolden(t, name, got)
		})
	}
}

// The site config is found through $JOBSHIFT_CONFIG when -config is absent.
func TestCLIConfigFromEnv(t *testing.T) {
	isolate(t)
	t.Setenv("JOBSHIFT_CONFIG", "testdata/cli/bad.hcl")
	got, code := runCLI(t, []string{"validate", "testdata/cli/deployment.yaml"}, "")
	if code != 1 || !strings.Contains(got, "testdata/cli/bad.hcl:2:12: error: Invalid driver") {
		t.Errorf("exit %d, output:\n%s", code, got)
	}
}
