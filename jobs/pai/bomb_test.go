package pai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// bomb is a mapping of six alias levels, 10^6 leaves in all.
const bomb = "  a: &a [x, x, x, x, x, x, x, x, x, x]\n" +
	"  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
	"  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
	"  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
	"  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n" +
	"  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
	"  x: hello\n"

// An alias bomb in parameters or secrets is refused at the mapping with
// what is wrong; it used to be cut silently, so <% $parameters.x %> was
// reported as naming nothing. Positions counted by hand.
func TestAliasBombRefused(t *testing.T) {
	const head = "protocolVersion: 2\nname: bomb\ntype: job\nprerequisites:\n  - {type: dockerimage, name: img, uri: busybox}\n"
	const role = "taskRoles:\n  w:\n    instances: 1\n    dockerImage: img\n    resourcePerInstance: {cpu: 1, memoryMB: 100, gpu: 0}\n" +
		"    commands: [\"echo <% $parameters.x %> <% $secrets.x %>\"]\n"
	cases := map[string]struct {
		src  string
		want []string
	}{
		"parameters": {head + "parameters:\n" + bomb + "secrets: {x: s}\n" + role, []string{"error 7:3 Parameters too large"}},
		"secrets":    {head + "parameters: {x: p}\n" + role + "---\n" + bomb, []string{"error 14:3 Secrets too large"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, diags := ReadV2([]byte(tc.src), jobs.ReadOptions{Path: "f"})
			var got []string
			for _, d := range diags {
				sev := "warning"
				if d.Severity == 1 {
					sev = "error"
				}
				got = append(got, fmt.Sprintf("%s %d:%d %s", sev, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, strings.TrimSpace(diags.Error()))
			}
		})
	}
}
