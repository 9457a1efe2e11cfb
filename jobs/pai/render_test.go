package pai

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostile holds strings that must reach the task byte for byte.
var hostile = map[string]string{
	"quotes":     `echo "double" 'single' \"escaped\"`,
	"dollar":     `echo $HOME ${PAI_TASK_INDEX:-0} $(id -u) $$`,
	"backticks":  "echo `date` `uname -a`",
	"newlines":   "line1\nline2\r\nline3",
	"braces":     "echo {{ not.mustache }} {{{triple}}} {{#sec}}x{{/sec}}",
	"closer":     "echo %> and %%> and > %",
	"html":       `echo <b>&amp;</b> "<>&'/=` + "`",
	"unicode":    "echo 训练 🚀 \u00a0nbsp",
	"backslash":  `printf 'a\tb\n' \\ \\\\`,
	"invalidutf": "echo \xff\xfe\xc3",
}

func TestRenderPassesTextThrough(t *testing.T) {
	for name, s := range hostile {
		t.Run(name, func(t *testing.T) {
			in := "x " + s + " y" // keep the edges non-blank: the result is trimmed
			got, err := render(in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != in {
				t.Errorf("render changed the text:\n got %q\nwant %q", got, in)
			}
		})
	}
}

func TestRenderInsertsValuesVerbatim(t *testing.T) {
	for name, s := range hostile {
		if name == "closer" {
			s += " <% $parameters.other %>" // a tag inside a value is not rendered again
		}
		t.Run(name, func(t *testing.T) {
			ctx := map[string]any{"$parameters": map[string]any{"v": s, "other": "NO"}}
			got, err := render("run <% $parameters.v %> end", ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := "run " + s + " end"; got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	ctx := map[string]any{
		"$parameters": map[string]any{
			"model": "resnet20", "batch": int64(32), "lr": 0.01, "one": 1.0, "big": 1e21, "tiny": 1e-7,
			"huge": new(big.Int).Lsh(big.NewInt(1), 70), "yes": true, "none": nil, "empty": "",
			"list": []any{"a", nil, int64(3)}, "obj": map[string]any{"k": "v"}, "pad": "  x  ",
		},
		"$data":   map[string]any{"name": "cifar10", "uri": []any{"https://e/x.tgz"}},
		"$script": map[string]any{"name": "bench", "contributor": "Alice"},
	}
	tests := map[string]struct{ in, want string }{
		"parameter":            {"--model=<% $parameters.model %>", "--model=resnet20"},
		"no spaces":            {"<%$parameters.model%>", "resnet20"},
		"wide spaces":          {"<%   $parameters.model   %>", "resnet20"},
		"newline in tag":       {"a <%\n   $parameters.model %> b", "a resnet20 b"},
		"integer":              {"<% $parameters.batch %>", "32"},
		"float":                {"<% $parameters.lr %>", "0.01"},
		"float one":            {"<% $parameters.one %>", "1"},
		"exponent":             {"<% $parameters.big %> <% $parameters.tiny %>", "1e+21 1e-7"},
		"beyond 2^53":          {"<% $parameters.huge %>", "1.1805916207174113e+21"},
		"boolean":              {"<% $parameters.yes %>", "true"},
		"null written back":    {"<% $parameters.none %>", "<% $parameters.none %>"},
		"empty string":         {"a<% $parameters.empty %>b", "ab"},
		"array joins":          {"<% $parameters.list %>", "a,,3"},
		"object":               {"<% $parameters.obj %>", "[object Object]"},
		"index":                {"wget <% $data.uri[0] %>", "wget https://e/x.tgz"},
		"dotted index":         {"<% $data.uri.0 %>", "https://e/x.tgz"},
		"index out of range":   {"<% $data.uri[3] %>", "<% $data.uri.3 %>"},
		"array length":         {"<% $data.uri.length %>", "1"},
		"string index":         {"<% $script.name[1] %>", "e"},
		"whole prerequisite":   {"<% $script.contributor %>/<% $script.name %>", "Alice/bench"},
		"secret kept":          {"pw=<%$secrets.password%>", "pw=<% $secrets.password %>"},
		"unknown root":         {"<% $output.name %>", "<% $output.name %>"},
		"missing key":          {"<% $parameters.nope %>", "<% $parameters.nope %>"},
		"words in tag":         {"<% $parameters.model x %>", "<% $parameters.model x %>"},
		"empty tag":            {"a <%%> b", "a <%  %> b"},
		"dot is the context":   {"<% . %>", "[object Object]"},
		"leading dot":          {"<% .model %>", "<% .model %>"},
		"result trimmed":       {"<% $parameters.pad %>", "x"},
		"js whitespace trim":   {"\u00a0\ufeff a \u2028", "a"},
		"section dropped":      {"a<%# $parameters.yes %>b<% $parameters.model %><%/ $parameters.yes %>c", "ac"},
		"inverted dropped":     {"a<%^ x %>b<%/ x %>c", "ac"},
		"comment dropped":      {"a <%! note %> b", "a  b"},
		"standalone comment":   {"a\n   <%! note %>  \nb", "a\nb"},
		"standalone section":   {"a\n<%# s %>\nhidden\n<%/ s %>\nb", "a\nb"},
		"tag keeps its line":   {"a\n  <% $parameters.model %>  \nb", "a\n  resnet20  \nb"},
		"unescaped dropped":    {"a<%& $parameters.model %>b<%{ $parameters.model }%>c", "abc"},
		"partial dropped":      {"a<%> part %>b", "ab"},
		"delimiter change":     {"<%={{ }}=%>{{ $parameters.model }} {{ $secrets.x }} <% kept %>", "resnet20 <% $secrets.x %> <% kept %>"},
		"percent outside tags": {"echo 100%> done", "echo 100%> done"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := render(tc.in, ctx)
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("render(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	tests := map[string]struct {
		in     string
		offset int // of the tag that is wrong
		msg    string
	}{
		"unclosed tag":      {"echo <% $parameters.x", 5, "unclosed tag"},
		"unclosed at end":   {"echo <%", 5, "unclosed tag"},
		"unopened section":  {"a <%/ s %>", 2, "unopened section"},
		"unclosed section":  {"<%# s %> x", 0, "unclosed section"},
		"mismatch":          {"<%# a %>x<%/ b %>", 9, "unclosed section"},
		"invalid tags":      {"<%= x =%>", 0, "invalid tags"},
		"unclosed triple":   {"<%{ x %>", 0, "unclosed tag"},
		"unclosed new tags": {"<%={{ }}=%> {{ x", 12, "unclosed tag"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := render(tc.in, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Msg, tc.msg) || err.Offset != tc.offset {
				t.Errorf("error %q at %d, want %q at %d", err.Msg, err.Offset, tc.msg, tc.offset)
			}
		})
	}
}

func TestJSNumber(t *testing.T) {
	tenth := 0.1 // a variable, so the sum is computed in float64 as in JavaScript
	tests := map[string]struct {
		in   float64
		want string
	}{
		"zero": {0, "0"}, "negative zero": {math.Copysign(0, -1), "0"}, "int": {42, "42"},
		"fraction": {0.5, "0.5"}, "small": {0.000001, "0.000001"}, "smaller": {1e-7, "1e-7"},
		"large": {1e20, "100000000000000000000"}, "larger": {1e21, "1e+21"}, "mixed": {123.456, "123.456"},
		"negative": {-2.5, "-2.5"}, "shortest": {tenth + 2*tenth, "0.30000000000000004"}, "nan": {math.NaN(), "NaN"},
		"inf": {math.Inf(1), "Infinity"}, "exp digits": {1.5e300, "1.5e+300"},
	}
	for name, tc := range tests {
		if got := jsNumber(tc.in); got != tc.want {
			t.Errorf("%s: jsNumber(%v) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}

func TestRenderUnresolved(t *testing.T) {
	ctx := map[string]any{"$parameters": map[string]any{"v": "<% $looks.like.a.tag %>"}}
	out, unresolved, err := renderRefs("<% $secrets.pw %> <% $parameters.v %> <% $data.uri[2] %> <%# s %><% $hidden %><%/ s %>", ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<% $secrets.pw %> <% $looks.like.a.tag %> <% $data.uri.2 %>"; out != want {
		t.Errorf("out = %q, want %q", out, want)
	}
	// Only what the renderer wrote back counts; text that came from a value
	// and tags inside a dropped section do not.
	if diff := cmp.Diff([]string{"$secrets.pw", "$data.uri.2"}, unresolved); diff != "" {
		t.Errorf("unresolved (-want +got):\n%s", diff)
	}
}
