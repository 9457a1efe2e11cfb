package jobhcl

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/nomad/api"
)

// hostile are strings that HCL, Nomad interpolation or consul-template
// would interpret if they were not escaped.
var hostile = []string{
	`${NOMAD_ALLOC_INDEX}`, `$${x}`, `%{ if true }x%{ endif }`, `%%{`, `{{ env "HOME" }}`, `}}{{`,
	`"quoted"`, `back\slash\n`, "new\nline", "tab\there", `'single'`, `$HOME`, "EOT", "EOT\n",
	"trailing\n", "", " ", "ünïcödé ☃", `<% $secrets.x %>`, "\\${", "${", "%{", "$", "%",
}

func attrString(t *testing.T, body *hclsyntax.Body, path ...string) string {
	t.Helper()
	for _, p := range path[:len(path)-1] {
		var next *hclsyntax.Body
		for _, b := range body.Blocks {
			if b.Type == p {
				next = b.Body
				break
			}
		}
		if next == nil {
			t.Fatalf("no block %q", p)
		}
		body = next
	}
	a := body.Attributes[path[len(path)-1]]
	if a == nil {
		t.Fatalf("no attribute %v", path)
	}
	v, diags := a.Expr.Value(&hcl.EvalContext{})
	if diags.HasErrors() {
		t.Fatalf("%v: %s", path, diags.Error())
	}
	return v.AsString()
}

// TestMarshalStringsRoundTrip: every string (quoted or heredoc) reads
// back from the HCL byte for byte.
func TestMarshalStringsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := map[string]string{}
	for i, s := range hostile {
		cases["fixed-"+string(rune('a'+i))] = s
	}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for n := rng.Intn(6); n >= 0; n-- {
			b.WriteString(hostile[rng.Intn(len(hostile))])
		}
		cases["random-"+time.Duration(i).String()] = b.String()
	}
	for name, s := range cases {
		job := &api.Job{ID: new("j"), TaskGroups: []*api.TaskGroup{{Name: new("g"), Tasks: []*api.Task{{
			Name: "t", Driver: "raw_exec",
			Config:    map[string]any{"command": s, "args": []string{s, "x"}},
			Env:       map[string]string{"E": s},
			Templates: []*api.Template{{EmbeddedTmpl: new(s), DestPath: new("local/x")}},
		}}}}}
		src, err := Marshal(job)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, diags := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s\n%s", name, diags.Error(), src)
		}
		body := f.Body.(*hclsyntax.Body)
		for _, path := range [][]string{
			{"job", "group", "task", "config", "command"},
			{"job", "group", "task", "env", "E"},
			{"job", "group", "task", "template", "data"},
		} {
			if got := attrString(t, body, path...); got != s {
				t.Errorf("%s %v: %s", name, path, cmp.Diff(s, got))
			}
		}
	}
}

func TestMarshalNonIdentifierKeys(t *testing.T) {
	job := &api.Job{ID: new("j"), Meta: map[string]string{"a.b": "1", "ok": "2"}}
	src, err := Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	want := "job \"j\" {\n  meta = {\n    \"a.b\" = \"1\"\n    ok    = \"2\"\n  }\n}\n"
	if diff := cmp.Diff(want, string(src)); diff != "" {
		t.Error(diff)
	}
}

func TestMarshalNoID(t *testing.T) {
	if _, err := Marshal(&api.Job{}); err == nil {
		t.Error("want an error for a job without ID")
	}
}

// Decomposed Unicode (e + U+0301 COMBINING ACUTE ACCENT, NFD) stays as
// written in every kind of value: cty.StringVal, which hclwrite's
// SetAttributeValue used, normalised it to é (U+00E9). Expected text written
// by hand from HCL's quoting rules.
func TestMarshalKeepsUnicodeBytes(t *testing.T) {
	const nfd = "e\u0301"
	job := &api.Job{ID: new("j"), Meta: map[string]string{"a.b": nfd, "k": nfd, "k" + nfd: "v"},
		Datacenters: []string{nfd, "x"}}
	src, err := Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	want := "job \"j\" {\n  datacenters = [\"e\u0301\", \"x\"]\n  meta = {\n    \"a.b\" = \"e\u0301\"\n    k     = \"e\u0301\"\n    \"ke\u0301\"  = \"v\"\n  }\n}\n"
	if diff := cmp.Diff(want, string(src)); diff != "" {
		t.Errorf("(-want +got):\n%s\n%+q", diff, src)
	}
}

// Static ports have no block of their own in a jobspec: they are port
// blocks with a static value (jobspec2 moves those to ReservedPorts), and
// come before the dynamic ones; a job constraint is a constraint block.
func TestMarshalStaticPorts(t *testing.T) {
	job := &api.Job{ID: new("j"), Constraints: []*api.Constraint{{Operand: api.ConstraintDistinctHosts, RTarget: "true"}},
		TaskGroups: []*api.TaskGroup{{Name: new("g"), Networks: []*api.NetworkResource{{
			ReservedPorts: []api.Port{{Label: "leinao_0", Value: 10001}},
			DynamicPorts:  []api.Port{{Label: "http"}}}}}}}
	src, err := Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	want := `job "j" {
  constraint {
    value    = "true"
    operator = "distinct_hosts"
  }
  group "g" {
    network {
      port "leinao_0" {
        static = 10001
      }
      port "http" {
      }
    }
  }
}
`
	if d := cmp.Diff(want, string(src)); d != "" {
		t.Errorf("HCL (-want +got):\n%s", d)
	}
	if len(job.TaskGroups[0].Networks[0].ReservedPorts) != 1 {
		t.Errorf("the job itself was changed: %+v", job.TaskGroups[0].Networks[0])
	}
}
