package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
	"github.com/jobshift/jobshift/translate/completion"
)

// hostile are values that break naive quoting in sh, bash, eval, printf,
// consul-template and Nomad interpolation. Each must reach the process byte
// for byte.
var hostile = []string{
	`plain`, ``, ` lead and trail `, `it's`, `say "hi"`, `back\slash\`, `$HOME`, `${HOME}`, `$(id)`, "`id`",
	`;rm -rf /tmp/nothing;`, `a && b || c | d`, `*?[a-z]`, `~root`, `%s%d%%`, `{{ .x }}`, `${NOMAD_ALLOC_ID}`,
	`<% $secrets.x %>`, "tab\there", "new\nline", "cr\rx", "uni ✓ 中文", `!event`, `#comment`, `a=b`, `-n`, `--`,
}

// sq single-quotes s for sh.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// printed reads the NUL-separated values a task printed to its stdout.
func printed(t *testing.T, runDir, task string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(runDir, task, "attempt-1", "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Split(string(b), "\x00")
	return out[:len(out)-1] // the last NUL ends the last value
}

func TestHostileValuesReachTheProcess(t *testing.T) {
	printEach := `for a; do printf '%s\0' "$a"; done`
	var quoted []string
	for _, h := range hostile {
		quoted = append(quoted, sq(h))
	}
	var env []jobs.EnvVar
	var envRefs []string
	for i, h := range hostile {
		name := fmt.Sprintf("HOSTILE_%d", i)
		env = append(env, jobs.EnvVar{Name: name, Value: h})
		envRefs = append(envRefs, `"$`+name+`"`)
	}

	// PAI v1: the command is one line bash evaluates (eval "$1").
	v1 := paiV1("hostile-v1", 0, roleDef{name: "w", n: 1, cmd: "printf '%s\\0' " + strings.Join(quoted, " ") + " " + strings.Join(envRefs, " ")})
	v1.Roles[0].Env = env
	// PAI v2: a bash script under errexit/nounset/pipefail, one command per line.
	v2 := paiV1("hostile-v2", 0, roleDef{name: "w", n: 1})
	v2.Source.Format = jobs.FormatPAIv2
	v2.Roles[0].Command = jobs.Command{Kind: jobs.CommandBashScript,
		Script: "set -- " + strings.Join(quoted, " ") + "\n" + printEach + "\nprintf '%s\\0' " + strings.Join(envRefs, " ")}
	v2.Roles[0].Env = env
	// Kubeflow: argv straight to the process, no shell in between.
	kf := kube(jobs.FormatTFJob, "hostile-kf", nil,
		kubeRole("worker", "worker", 1, "Never", append([]string{"/bin/sh", "-c", printEach + `; printf '%s\0' ` + strings.Join(envRefs, " "), "sh"}, hostile...)...))
	kf.Roles[0].Env = env

	want := append(append([]string{}, hostile...), hostile...)
	for name, job := range map[string]*jobs.Job{"pai-v1 eval": v1, "pai-v2 script": v2, "kubeflow argv": kf} {
		t.Run(name, func(t *testing.T) {
			res, dir, _ := runJob(t, job, Options{})
			if res.Phase != completion.PhaseSucceeded {
				t.Fatalf("result %+v", res)
			}
			task := job.Roles[0].Name + "-0"
			if diff := cmp.Diff(want, printed(t, dir, task)); diff != "" {
				t.Errorf("values the process got (-want +got):\n%s", diff)
			}
		})
	}
}
