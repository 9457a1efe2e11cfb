package jobhcl

import (
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
)

// FuzzMarshal: Marshal's direct emitter writes the bytes hclwrite +
// Format write, and any UTF-8 string, written by Marshal as an argument,
// an env value, a meta value (under any key) and a template body, parses
// back to itself (HCL's parser gives it in NFC, as cty.StringVal does;
// the bytes in the file are checked by TestMarshalKeepsUnicodeBytes).
func FuzzMarshal(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, "k")
	}
	f.Add("e\u0301", "a.b")
	f.Fuzz(func(t *testing.T, s, key string) {
		if !utf8.ValidString(s) || !utf8.ValidString(key) || key == "" {
			return // HCL text is UTF-8; the readers refuse other bytes
		}
		job := &api.Job{ID: new("j"), Meta: map[string]string{key: s}, TaskGroups: []*api.TaskGroup{{Name: new("g"), Tasks: []*api.Task{{
			Name: "t", Driver: "raw_exec",
			Config:    map[string]any{"command": s, "args": []string{s, "x"}},
			Env:       map[string]string{"E": s},
			Templates: []*api.Template{{EmbeddedTmpl: new(s), DestPath: new("local/x")}},
		}}}}}
		src, err := Marshal(job)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if ref, _ := marshalFormat(job); string(ref) != string(src) {
			t.Fatalf("direct emitter differs from hclwrite.Format:\n%s\n---\n%s", src, ref)
		}
		file, diags := hclsyntax.ParseConfig(src, "x.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%q: %s\n%s", s, diags.Error(), src)
		}
		want := cty.StringVal(s).AsString()
		body := file.Body.(*hclsyntax.Body)
		for _, path := range [][]string{
			{"job", "group", "task", "config", "command"},
			{"job", "group", "task", "env", "E"},
			{"job", "group", "task", "template", "data"},
		} {
			if got := attrString(t, body, path...); got != want {
				t.Errorf("%v: got %q, want %q\n%s", path, got, want, src)
			}
		}
		meta := body.Blocks[0].Body.Attributes["meta"]
		if meta == nil {
			// identifier keys are written as a block
			for _, b := range body.Blocks[0].Body.Blocks {
				if b.Type == "meta" {
					if got := attrString(t, b.Body, key); got != want {
						t.Errorf("meta block: got %q, want %q", got, want)
					}
					return
				}
			}
			t.Fatalf("no meta in\n%s", src)
		}
		v, d := meta.Expr.Value(&hcl.EvalContext{})
		if d.HasErrors() {
			t.Fatalf("meta: %s\n%s", d.Error(), src)
		}
		if got := v.GetAttr(cty.StringVal(key).AsString()).AsString(); got != want {
			t.Errorf("meta %q: got %q, want %q", key, got, want)
		}
	})
}
