package nomad

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobshift/jobshift/integration/nomad/agent"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
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

// TestAgentLongInterpolatedEnv: on the real agent, a "${X}" value whose
// env-template line is 65535 bytes, the longest the render accepts, reaches
// the process byte for byte (Nomad's parser takes it); one byte more is
// refused by the render (TestEnvTemplateLineLimit) instead of failing the
// task with "error parsing env template".
func TestAgentLongInterpolatedEnv(t *testing.T) {
	t.Setenv("NOMAD_ADDR", agent.Addr(t))
	out := filepath.Join(t.TempDir(), "seen")
	value := "${X}" + strings.Repeat("a", 65535-2-1-2-4)
	j := &jobs.Job{Name: "envline-" + fmt.Sprint(time.Now().UnixNano()), Source: jobs.Source{Format: jobs.FormatTFJob},
		Completion: jobs.Completion{Kind: jobs.CompletionTF},
		Roles: []*jobs.Role{{Name: "worker", ReplicaType: "worker", Instances: 1,
			Command:   jobs.Command{Kind: jobs.CommandArgv, Command: []string{"sh"}, Args: []string{"-c", `printf '%s' "$XY" >"$1"`, "sh", out}},
			Env:       []jobs.EnvVar{{Name: "XY", Value: value}},
			Resources: jobs.Resources{CPUMilli: 500, MemoryMiB: 64}}}}
	res := runJob(t, plan(j, rawExecSite()))
	if res.Phase != completion.PhaseSucceeded {
		t.Fatalf("job %s: %+v", j.Name, res)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != value {
		t.Errorf("the task saw %d bytes, want the %d-byte value unchanged", len(b), len(value))
	}
}
