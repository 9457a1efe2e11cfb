package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/jobshift/jobshift/drivers/nomad"
)

// TestConvertWatched: convert writes the unwatched shape unless -watched
// (what run submits), says so in the HCL header and in the JSON job's
// meta, and each names the way to the other shape.
func TestConvertWatched(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args       []string
		watched    bool
		rendezvous string
	}{
		{nil, false, ""},
		{[]string{"-watched"}, true, nomad.RendezvousSnap},
	} {
		args := append(append([]string{"convert", "-to", "nomad-json"}, tc.args...), "testdata/cli/pai-v1.json")
		out, errOut, code := runCLIOut(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct{ Job *api.Job }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		st := nomad.ShapeOf(doc.Job)
		if st.Watched != tc.watched || doc.Job.Meta[nomad.MetaRendezvous] != tc.rendezvous {
			t.Errorf("%v: watched %v, rendezvous %q; want %v, %q", args, st.Watched, doc.Job.Meta[nomad.MetaRendezvous], tc.watched, tc.rendezvous)
		}
		if !strings.Contains(doc.Job.Meta[nomad.MetaShape], "convert") {
			t.Errorf("%v: meta %s = %q names no way to the other shape", args, nomad.MetaShape, doc.Job.Meta[nomad.MetaShape])
		}
		hcl, _, _ := runCLIOut(t, append(append([]string{"convert", "-to", "nomad"}, tc.args...), "testdata/cli/pai-v1.json")...)
		head := strings.SplitN(hcl, "\n", 2)[0]
		if !strings.HasPrefix(head, "# jobshift: "+map[bool]string{true: "watched", false: "unwatched"}[tc.watched]+":") || !strings.Contains(head, "jobshift convert") {
			t.Errorf("%v: HCL header %q", args, head)
		}
	}
}
