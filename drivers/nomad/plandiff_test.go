package nomad

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"
)

// The plan diff reads as `nomad job plan` marks it: + added, - deleted,
// +/- edited (old => new); unchanged objects are left out.
func TestWriteJobDiff(t *testing.T) {
	d := &api.JobDiff{Type: "Edited", ID: "alice~mesh",
		Fields: []*api.FieldDiff{
			{Type: "Edited", Name: "Priority", Old: "50", New: "70"},
			{Type: "Added", Name: "Meta[k]", New: "v"},
			{Type: "None", Name: "Type", Old: "batch", New: "batch"},
		},
		TaskGroups: []*api.TaskGroupDiff{{Type: "Edited", Name: "worker", Updates: map[string]uint64{"create/destroy update": 2},
			Fields: []*api.FieldDiff{{Type: "Edited", Name: "Count", Old: "2", New: "3"}},
			Tasks: []*api.TaskDiff{{Type: "Edited", Name: "main", Annotations: []string{"forces create/destroy update"},
				Objects: []*api.ObjectDiff{
					{Type: "Edited", Name: "Config", Fields: []*api.FieldDiff{{Type: "Deleted", Name: "args[0]", Old: "-x"}}},
					{Type: "None", Name: "Resources"},
				}}},
		}},
	}
	var b strings.Builder
	writeJobDiff(&b, d)
	want := `+/- Job: "alice~mesh"
  + Meta[k]: "v"
  +/- Priority: "50" => "70"
+/- Task Group: "worker" (2 create/destroy update)
  +/- Count: "2" => "3"
  +/- Task: "main" (forces create/destroy update)
    +/- Config {
      - args[0]: "-x"
    }
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("diff text (-want +got):\n%s", diff)
	}
}
