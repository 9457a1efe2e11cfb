package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/jobs/diag"
)

// Driver refusals print as file:line:col: error: like the readers' errors,
// every one of them, also when wrapped; other errors name the command.
func TestPrintTargetError(t *testing.T) {
	at := func(line, col int) *hcl.Range {
		return &hcl.Range{Filename: "nofile.json", Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
	}
	refusal := &diag.Error{Kind: errors.New("job cannot run on Slurm"), Diags: hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "NUL byte", Detail: "Role w: a NUL byte.", Subject: at(5, 3)},
		{Severity: hcl.DiagError, Summary: "No command", Detail: "Role ps has no command and no image.", Subject: at(9, 7)},
	}}
	cases := map[string]struct {
		err  error
		want string
	}{
		"every refusal": {refusal, "nofile.json:5:3: error: NUL byte\n    Role w: a NUL byte.\n" +
			"nofile.json:9:7: error: No command\n    Role ps has no command and no image.\n"},
		"wrapped": {fmt.Errorf("contract of task w-0: %w", refusal), "nofile.json:5:3: error: NUL byte\n    Role w: a NUL byte.\n" +
			"nofile.json:9:7: error: No command\n    Role ps has no command and no image.\n"},
		"bare diagnostics": {hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "S", Detail: "D", Subject: at(3, 4)}},
			"nofile.json:3:4: error: S\n    D\n"},
		"not about the job": {errors.New("registering job: connection refused"), "jobshift run: registering job: connection refused\n"},
	}
	for name, tc := range cases {
		var b bytes.Buffer
		printTargetError(&b, "run", "nomad", tc.err)
		if d := cmp.Diff(tc.want, b.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}
