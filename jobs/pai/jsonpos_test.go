package pai

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

// jvalue turns a jnode into what encoding/json (UseNumber) decodes, with
// the last of duplicate keys winning as in both parsers.
func jvalue(n *jnode) any {
	switch n.Kind {
	case jNull:
		return nil
	case jBool:
		return n.Bool
	case jNumber:
		return json.Number(n.Str)
	case jString:
		return n.Str
	case jArray:
		out := []any{}
		for _, e := range n.Elems {
			out = append(out, jvalue(e))
		}
		return out
	}
	out := map[string]any{}
	for _, m := range n.Members {
		out[m.Key] = jvalue(m.Val)
	}
	return out
}

// FuzzJSONParity: on every strict JSON document, the position-keeping
// parser yields exactly the values encoding/json does, so no byte of a
// command or env value is altered by our own tokenizer.
func FuzzJSONParity(f *testing.F) {
	seed(f, ".json")
	f.Add([]byte(`{"a": "\ud800\ud800\udc00 \ud83d\ude80 \u00e9 \"q\" \\ \/ \b\f\n\r\t", "b": [1, -0.5e+3, true, null, {}], "a": 2}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) || !utf8.Valid(src) {
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(src))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		root, diags := parseJSON(src, "f")
		if root == nil {
			t.Fatalf("valid JSON refused: %v", diags)
		}
		if diff := cmp.Diff(want, jvalue(root)); diff != "" {
			t.Fatalf("values differ from encoding/json (-want +got):\n%s", diff)
		}
	})
}

func TestJSONPositions(t *testing.T) {
	// BOM, CRLF, a tab, a comment and multi-byte characters before values:
	// columns count code points, the BOM is not a column.
	src := "\xef\xbb\xbf{\r\n\t\"é🚀\": /* c */ \"v\",\r\n  // x\r\n  \"n\": 12}"
	root, diags := parseJSON([]byte(src), "f")
	if root == nil || len(diags) != 0 {
		t.Fatalf("parse failed: %v", diags)
	}
	got := map[string]jobs.Pos{}
	for _, m := range root.Members {
		got[m.Key+" key"] = m.KeyPos
		got[m.Key+" value"] = m.Val.Pos
	}
	want := map[string]jobs.Pos{
		"é🚀 key":   {File: "f", Line: 2, Col: 2},
		"é🚀 value": {File: "f", Line: 2, Col: 16},
		"n key":    {File: "f", Line: 4, Col: 3},
		"n value":  {File: "f", Line: 4, Col: 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
	if root.Pos != (jobs.Pos{File: "f", Line: 1, Col: 1}) {
		t.Errorf("root at %v, want f:1:1", root.Pos)
	}
}

func TestDetection(t *testing.T) {
	tests := map[string]struct {
		src        string
		v1, isPAI  bool
		wantFormat jobs.Format
	}{
		"v1 object":          {`{"jobName": "a", "image": "i", "taskRoles": [{"name": "r", "command": "c"}]}`, true, true, jobs.FormatPAIv1},
		"v1 with comment":    {"// hi\n{\"jobName\": \"a\", \"image\": \"i\", \"taskRoles\": [{\"name\": \"r\", \"command\": \"c\"}]}", true, true, jobs.FormatPAIv1},
		"v1 with BOM":        {"\xef\xbb\xbf{\"jobName\": \"a\", \"image\": \"i\", \"taskRoles\": [{\"name\": \"r\", \"command\": \"c\"}]}", true, true, jobs.FormatPAIv1},
		"v2 yaml":            {"protocolVersion: 2\nname: a\ntype: job\nprerequisites: [{name: i, type: dockerimage, uri: x}]\ntaskRoles: {r: {dockerImage: i, resourcePerInstance: {cpu: 1, memoryMB: 1, gpu: 0}, commands: [c]}}\n", false, true, jobs.FormatPAIv2},
		"v2 as json":         {`{"protocolVersion": "2", "name": "a", "type": "job", "prerequisites": [{"name": "i", "type": "dockerimage", "uri": "x"}], "taskRoles": {"r": {"dockerImage": "i", "resourcePerInstance": {"cpu": 1, "memoryMB": 1, "gpu": 0}, "commands": ["c"]}}}`, false, true, ""},
		"pre-standard":       {"protocol_version: v2\nname: a\n", false, true, ""},
		"tfjob":              {"apiVersion: kubeflow.org/v1\nkind: TFJob\n", false, false, ""},
		"broken v1 json":     {`{"jobName": "a",, }`, true, true, ""},
		"json without marks": {`{"apiVersion": "v1"}`, true, false, ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := isV1([]byte(tc.src)); got != tc.v1 {
				t.Errorf("isV1 = %v, want %v", got, tc.v1)
			}
			if got := IsPAI([]byte(tc.src)); got != tc.isPAI {
				t.Errorf("IsPAI = %v, want %v", got, tc.isPAI)
			}
			job, _ := Read([]byte(tc.src), jobs.ReadOptions{Path: "f"})
			if tc.wantFormat != "" && (job == nil || job.Source.Format != tc.wantFormat) {
				t.Errorf("Read gave %+v, want format %s", job, tc.wantFormat)
			}
		})
	}
}
