package load

import (
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// v1Job writes a PAI v1 job with one role per entry of instances; the
// taskNumber of role i is on line 3+i, column 45.
func v1Job(instances ...int) string {
	var b strings.Builder
	b.WriteString("{\"jobName\": \"lim\", \"image\": \"ubuntu\",\n\"taskRoles\": [\n")
	for i, n := range instances {
		sep := ","
		if i == len(instances)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "{\"name\": \"r%02d\", \"command\": \"true\", \"taskNumber\": %d, \"cpuNumber\": 1, \"memoryMB\": 100}%s\n", i, n, sep)
	}
	b.WriteString("]}\n")
	return b.String()
}

func repeat(n, count int) []int {
	out := make([]int, count)
	for i := range out {
		out[i] = n
	}
	return out
}

// Each limit refuses at the value that crosses it; the positions and the
// limits below are written from the platform rules in limits.go, not from
// the output.
func TestReadLimits(t *testing.T) {
	longEnv := strings.Repeat("x", 128<<10)
	cases := map[string]struct {
		src  string
		want []string // "line:col summary" of every error
	}{
		"1e9 tasks":       {v1Job(1000000000), []string{"3:50 Too many tasks"}},
		"5000 tasks fit":  {v1Job(4999, 1), nil},
		"5001st task":     {v1Job(4999, 1, 1), []string{"5:50 Too many tasks"}},
		"one report only": {v1Job(5000, 1, 1), []string{"4:50 Too many tasks"}},
		"17 roles fit (OpenPAI had no role limit)": {v1Job(repeat(1, 17)...), nil},
		"300 roles fit": {v1Job(repeat(1, 300)...), nil},
		"argv element over 128 K": {"apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: a}\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n          containers:\n          - name: tensorflow\n            image: i\n            command: [\"" + longEnv + "\"]\n",
			[]string{"13:13 Argument too long"}},
		"env over 128 K": {"apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata: {name: a}\nspec:\n  tfReplicaSpecs:\n    Worker:\n      replicas: 1\n      template:\n        spec:\n          containers:\n          - name: tensorflow\n            image: i\n            env:\n            - {name: BIG, value: \"" + longEnv + "\"}\n",
			[]string{"14:22 Environment variable too long"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := Read([]byte(tc.src), jobs.ReadOptions{Path: "f"})
			var got []string
			for _, d := range diags {
				if d.Severity == hcl.DiagError && d.Subject != nil {
					got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%s", diff, diags.Error())
			}
		})
	}
}

// endless never ends: reading it without a limit runs out of memory.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestReadAllLimited(t *testing.T) {
	cases := map[string]struct {
		r    io.Reader
		want string // "" = read whole; else "line:col summary"
	}{
		"exactly 1.5 MiB": {strings.NewReader(strings.Repeat("a", 1572864)), ""},
		"one byte more":   {strings.NewReader(strings.Repeat("a", 1572865)), "1:1572865 File too large"},
		"endless":         {endless{}, "1:1572865 File too large"},
		// the position counts lines: 1.5 MiB of "ab\n" lines puts byte
		// 1572864 at the start of line 524289.
		"lines": {strings.NewReader(strings.Repeat("ab\n", 524289)), "524289:1 File too large"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src, d := ReadAllLimited(tc.r, "f")
			got := ""
			if d != nil {
				got = fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
			} else if len(src) != 1572864 {
				t.Errorf("read %d bytes", len(src))
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLoadDevZero(t *testing.T) {
	_, diags := Load("/dev/zero", jobs.ReadOptions{})
	if len(diags) != 1 || diags[0].Summary != "File too large" || diags[0].Subject.Start.Column != 1572865 {
		t.Fatalf("diags %s", diags.Error())
	}
}
