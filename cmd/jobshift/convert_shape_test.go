package main

import (
	"encoding/json"
	"path/filepath"
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

// TestConvertOneClient: for a job whose shape depends on the cluster
// (Volcano's TensorFlow shape), convert writes the shape for several
// clients unless -one-client, and the HCL header and the JSON job's meta
// say which and name the flag that gives the other; a job whose shape
// does not depend on it says nothing of clients, with or without it.
func TestConvertOneClient(t *testing.T) {
	isolate(t)
	tf := filepath.Join("..", "..", "examples", "volcano-tf-shape.yaml")
	for _, tc := range []struct {
		file string
		args []string
		want string // in the label; "" = no clients named
	}{
		{tf, nil, "for a cluster of several clients; jobshift convert -one-client writes"},
		{tf, []string{"-one-client"}, "for a cluster of one client (what jobshift run submits where it counts one); jobshift convert without -one-client writes"},
		{"testdata/cli/pai-v1.json", []string{"-one-client"}, ""},
	} {
		args := append(append([]string{"convert", "-to", "nomad-json"}, tc.args...), tc.file)
		out, errOut, code := runCLIOut(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct{ Job *api.Job }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		label := doc.Job.Meta[nomad.MetaShape]
		if tc.want != "" && !strings.Contains(label, tc.want) || tc.want == "" && strings.Contains(label, "client") {
			t.Errorf("%v: meta %s = %q, want %q", args, nomad.MetaShape, label, tc.want)
		}
		hcl, _, _ := runCLIOut(t, append(append([]string{"convert", "-to", "nomad"}, tc.args...), tc.file)...)
		if head := strings.SplitN(hcl, "\n", 2)[0]; head != "# jobshift: "+label {
			t.Errorf("%v: HCL header %q, want the meta's label", args, head)
		}
	}
}
