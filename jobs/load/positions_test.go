package load

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs"
)

// Errors yaml.v3 gives without a line, and JSON comments in files read as
// YAML, used to be reported at 1:1 (or as "Invalid YAML"); invalid UTF-8
// in a v1 JSON file was accepted (and nomad-json turned it into U+FFFD).
// Each is now at the offending byte. Positions counted by hand in the sources below.
func TestReadErrorPositions(t *testing.T) {
	const tf = "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: a}\nspec:\n  tfReplicaSpecs:\n    Worker:\n"
	const v2 = "protocolVersion: 2\nname: x\ntype: job\ntaskRoles:\n  w:\n"
	cases := map[string]struct {
		src  string
		want string
	}{
		"invalid UTF-8, pai v2":      {v2 + "    instances: 1\n    commands: [\"echo \xff\"]\n", "7:22 Invalid UTF-8"},
		"invalid UTF-8, tfjob":       {tf + "      replicas: 1\n      x: \"\xfe\"\n", "8:11 Invalid UTF-8"},
		"invalid UTF-8, pai v1 JSON": {"{\"jobName\": \"x\", \"taskRoles\": [{\"name\": \"w\", \"command\": \"a\xff\"}]}\n", "1:59 Invalid UTF-8"},
		"unknown anchor, pai v2":     {v2 + "    instances: *nope\n", "6:16 Invalid YAML"},
		"unknown anchor, tfjob":      {tf + "      replicas: *x\n", "7:17 Invalid YAML"},
		"/* in a v2 JSON job":        {"{\"protocolVersion\": 2, \"name\": \"x\", /* c\n \"type\": \"job\"}\n", "1:37 Comment YAML cannot read"},
		"/* */ in a JSON tfjob":      {"{\"kind\": \"TFJob\", /* c */\n \"apiVersion\": \"kubeflow.org/v1\"}\n", "1:19 Comment YAML cannot read"},
		"unterminated /* hides keys": {"{/* c\n\"jobName\": \"x\", \"taskRoles\": []}\n", "1:2 Unterminated comment"},
		"a YAML glob is no comment":  {"cmd: ls /*\n", "1:1 Unknown job format"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := Read([]byte(tc.src), jobs.ReadOptions{Path: "f"})
			var got []string
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
				}
			}
			if diff := cmp.Diff([]string{tc.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, diags.Error())
			}
		})
	}
}
