package nomad

import (
	"strings"
	"testing"

	"github.com/jobshift/jobshift/jobs"
)

// A user value with "${name}" travels in the env template, one line per
// variable, which Nomad reads with a 64 KiB line limit (go-envparse's
// bufio.Scanner): a longer line failed the task at start ("error parsing
// env template"); now it is refused at render, at the variable. The
// lengths are hand-computed: NAME= (2+1) + the JSON string (value + 2
// quotes), the newline not counted (as translate/contract counts).
func TestEnvTemplateLineLimit(t *testing.T) {
	at := jobs.Pos{File: "j.yaml", Line: 9, Col: 7}
	cases := map[string]struct {
		value   string
		refused bool
	}{
		"65535-byte line fits":  {"${X}" + strings.Repeat("a", 65535-2-1-2-4), false},
		"65536-byte line fails": {"${X}" + strings.Repeat("a", 65536-2-1-2-4), true},
		// json.Marshal escapes < as \u003c: six bytes each
		"escapes count": {"${X}" + strings.Repeat("<", 11000), true},
		// without ${ the value stays in the env block, which has no limit
		"plain long value": {strings.Repeat("a", 100000), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			j := psWorker("x", "true")
			j.Roles[0].Env = []jobs.EnvVar{{Name: "XY", Value: tc.value, Pos: at}}
			_, diags := BuildJob(plan(j, rawExecSite()), fixtureContract{})
			refused := false
			for _, d := range diags {
				if d.Summary == "Environment value too long for Nomad" && d.Subject.Start.Line == 9 && d.Subject.Start.Column == 7 {
					refused = true
				}
			}
			if refused != tc.refused {
				t.Errorf("refused = %v, want %v: %v", refused, tc.refused, diags)
			}
		})
	}
}
