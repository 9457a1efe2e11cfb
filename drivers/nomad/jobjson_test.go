package nomad

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestJobJSONIsTheEncoders: JobJSON, which encodes the groups one at a
// time into the document, writes exactly what encoding/json's indenting
// Encoder writes for the whole {"Job": ...} (`nomad job run -json`
// reads it), also when the job's strings look like the slot it fills.
func TestJobJSONIsTheEncoders(t *testing.T) {
	tmpl := "{{ \"TaskGroups\": null }}\n    \"TaskGroups\": null\n<&>"
	group := func(name string) *api.TaskGroup {
		return &api.TaskGroup{Name: new(name), Count: new(2),
			Meta: map[string]string{"TaskGroups": "null"},
			Tasks: []*api.Task{{Name: "main", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sh", "args": []string{"-c", "echo <&>"}},
				Templates: []*api.Template{{EmbeddedTmpl: new(tmpl), DestPath: new("local/x.env"), Envvars: new(true)}}}}}
	}
	cases := map[string]*api.Job{
		"no group":   {ID: new("j"), Meta: map[string]string{"TaskGroups": "null"}},
		"one group":  {ID: new("j"), TaskGroups: []*api.TaskGroup{group("a")}},
		"two groups": {ID: new("j"), Meta: map[string]string{"x": "\n    \"TaskGroups\": null"}, TaskGroups: []*api.TaskGroup{group("a"), group("b")}},
	}
	for name, job := range cases {
		t.Run(name, func(t *testing.T) {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(map[string]*api.Job{"Job": job}); err != nil {
				t.Fatal(err)
			}
			got, err := JobJSON(job)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("JobJSON differs from the Encoder's:\n%s\nwant:\n%s", got, want.Bytes())
			}
		})
	}
}
