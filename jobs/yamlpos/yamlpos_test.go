package yamlpos

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestDocs(t *testing.T) {
	cases := map[string]struct {
		src  string
		opts Options
		docs int
		want string // "line:col summary: detail", "" = no error
	}{
		"two documents": {src: "a: 1\n---\nb: 2\n", docs: 2},
		"syntax error": {src: "a: 1\nb: c: d\n", opts: Options{Hint: "H."},
			want: "2:1 Invalid YAML: mapping values are not allowed in this context. H."},
		"tab indentation": {src: "a:\n\tb: 1\n", opts: Options{Hint: "H."},
			want: "2:1 Invalid YAML: found character that cannot start any token. The line is indented with a tab; YAML allows only spaces for indentation."},
		"unknown anchor at its alias": {src: "a: 1\nb: *nope\n", opts: Options{Hint: "H."},
			want: "2:4 Invalid YAML: unknown anchor 'nope' referenced. H."},
		"not UTF-8 at the byte":    {src: "a: 1\nb: \xff\n", opts: Options{Hint: "H."}, want: "2:4 Invalid YAML: invalid leading UTF-8 octet. H."},
		"YAML 1.2 refused":         {src: "%YAML 1.2\n---\na: 1\n", opts: Options{Hint: "H."}, want: "1:1 Invalid YAML: found incompatible YAML document. H."},
		"YAML 1.2 read":            {src: "%YAML 1.2\n---\na: 1\n", opts: Options{YAML12: true}, docs: 1},
		"block comment in JSON":    {src: "{\"kind\": \"TFJob\", /* c */\n \"apiVersion\": \"v1\"}\n", want: "1:19 Comment YAML cannot read: A /* */ comment: this file is read as YAML, as OpenPAI and Kubernetes read it, and YAML has no /* */ comments. Remove it, or use # comments."},
		"too many documents":       {src: strings.Repeat("---\na: 1\n", MaxDocs+1), docs: MaxDocs, want: "1:1 Too many YAML documents: The file holds more than 10000 documents; jobshift reads one job per file."},
		"empty file, no documents": {src: "", docs: 0},
	}
	for name, tc := range cases {
		docs, d := Docs([]byte(tc.src), "f.yaml", tc.opts)
		got := ""
		if d != nil {
			got = fmt.Sprintf("%d:%d %s: %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail)
			if d.Subject.Filename != "f.yaml" {
				t.Errorf("%s: file %q", name, d.Subject.Filename)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: diagnostic (-want +got):\n%s", name, diff)
		}
		if tc.want == "" && len(docs) != tc.docs || strings.HasPrefix(name, "too many") && len(docs) != tc.docs {
			t.Errorf("%s: %d documents, want %d", name, len(docs), tc.docs)
		}
	}
}

func root(t *testing.T, src string) *yaml.Node {
	t.Helper()
	docs, d := Docs([]byte(src), "f.yaml", Options{})
	if d != nil || len(docs) != 1 {
		t.Fatalf("%q: %v, %d docs", src, d, len(docs))
	}
	return Root(docs[0])
}

func keys(kvs []KV) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, fmt.Sprintf("%s=%s@%d:%d", kv.Key, Resolve(kv.Val).Value, kv.KeyNode.Line, kv.KeyNode.Column))
	}
	return out
}

func TestPairs(t *testing.T) {
	src := "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4\n  z: 5\n  [l]: 6\n  *b : 7\n"
	m := Pairs(Get(Pairs(root(t, src)).KVs, "m"))
	if d := cmp.Diff([]string{"y=3@4:3", "z=4@5:3", "x=1@1:11"}, keys(m.KVs)); d != "" {
		t.Errorf("KVs: explicit keys first and winning over merged ones (-want +got):\n%s", d)
	}
	if len(m.Dups) != 1 || m.Dups[0].Key != "z" || m.Dups[0].First != 1 || m.Dups[0].KeyNode.Line != 6 {
		t.Errorf("Dups = %+v, want z at line 6, first at index 1", m.Dups)
	}
	if d := cmp.Diff([]string{"y=3@4:3", "z=5@6:3", "x=1@1:11"}, keys(m.LastWins())); d != "" {
		t.Errorf("LastWins (-want +got):\n%s", d)
	}
	if len(m.Odd) != 2 || m.Odd[0].Line != 7 || m.Odd[1].Line != 8 {
		t.Errorf("Odd = %d keys, want the list key (line 7) and the alias of a mapping (line 8)", len(m.Odd))
	}
	// a mapping merging itself, and a merge of a list of mappings
	self := Pairs(root(t, "a: &a {k: 1, <<: *a}\n"))
	if d := cmp.Diff([]string{"k=1@1:8"}, keys(Pairs(Get(self.KVs, "a")).KVs)); d != "" {
		t.Errorf("self merge (-want +got):\n%s", d)
	}
	list := Pairs(Get(Pairs(root(t, "a: &a {p: 1}\nb: &b {p: 2, q: 3}\nc: {<<: [*a, *b]}\n")).KVs, "c"))
	if d := cmp.Diff([]string{"p=1@1:8", "q=3@2:14"}, keys(list.KVs)); d != "" {
		t.Errorf("merge of a list: earlier sources win (-want +got):\n%s", d)
	}
}

func TestValue(t *testing.T) {
	// an integer past int64 is a float to the parser, as to js-yaml
	n := root(t, "i: 0x1F\nu: 1_000\nbig: 123456789012345678901234567890\nf: 1.5\nb: true\ns: yes\nnull: ~\nl: [1, two]\nd: 1\nd: 2\n")
	v, ok := Value(n, ValueOptions{})
	if !ok {
		t.Fatal("a small value is whole")
	}
	m := v.(map[string]any)
	if got := fmt.Sprint(m["i"], " ", m["u"], " ", m["big"], " ", m["f"], " ", m["b"], " ", m["s"], " ", m["null"], " ", m["l"], " ", m["d"]); got != "31 1000 1.2345678901234568e+29 1.5 true yes <nil> [1 two] 1" {
		t.Errorf("values = %s", got)
	}
	if v, _ := Value(n, ValueOptions{LastWins: true}); v.(map[string]any)["d"] != int64(2) {
		t.Errorf("LastWins: d = %v, want 2", v.(map[string]any)["d"])
	}
	// a billion laughs: nine levels of ten aliases each
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	if _, ok := Value(root(t, b.String()), ValueOptions{}); ok {
		t.Error("an alias bomb is not whole")
	}
	if _, ok := Value(root(t, "a: [1, 2, 3]\n"), ValueOptions{MaxNodes: 3}); ok {
		t.Error("five nodes exceed a limit of three")
	}
}

func TestTypedScalars(t *testing.T) {
	kvs := Pairs(root(t, "a: 7\nb: \"7\"\nc: 99999999999999999999\nd: false\ne: \"false\"\nf: &x 8\ng: *x\n")).KVs
	for key, want := range map[string]string{"a": "7 true", "b": "0 false", "c": "0 false", "f": "8 true", "g": "8 true"} {
		i, ok := Int(Get(kvs, key))
		if got := fmt.Sprint(i, " ", ok); got != want {
			t.Errorf("Int(%s) = %s, want %s", key, got, want)
		}
	}
	for key, want := range map[string]string{"d": "false true", "e": "false false", "a": "false false"} {
		b, ok := Bool(Get(kvs, key))
		if got := fmt.Sprint(b, " ", ok); got != want {
			t.Errorf("Bool(%s) = %s, want %s", key, got, want)
		}
	}
}
