package jobhcl

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/nomad/api"
)

// directEqualsFormat: Marshal's direct emitter writes what hclwrite +
// hclwrite.Format write for job.
func directEqualsFormat(t *testing.T, name string, job *api.Job) {
	t.Helper()
	want, werr := marshalFormat(job)
	got, gerr := Marshal(job)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: error %v, reference error %v", name, gerr, werr)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s: direct emitter differs from hclwrite.Format (-format +direct):\n%s", name, d)
	}
}

// TestMarshalDirectEqualsFormat: on hand-picked layouts (alignment
// runs broken by objects, heredocs inside runs, quoted and non-ASCII keys,
// nested objects, empty blocks and objects, numbers, nulls, an object in a
// list, which falls back) and on random jobs of hostile strings, the
// direct emitter is byte-identical to the hclwrite + Format reference.
// (The Nomad renders of the driver goldens are covered by those goldens.)
func TestMarshalDirectEqualsFormat(t *testing.T) {
	f := 1.5
	neg := -3
	fixed := map[string]*api.Job{
		"meta object": {ID: new("j"), Meta: map[string]string{"a.b": "1", "ok": "2", "ke\u0301": "3", "日本": "4"}},
		"runs": {ID: new("j"), Name: new("other"), Type: new("batch"), Priority: &neg, Datacenters: []string{"a", "b"},
			TaskGroups: []*api.TaskGroup{{Name: new("g"), Count: new(2), Tasks: []*api.Task{{
				Name: "t", Driver: "docker", Leader: true,
				Config: map[string]any{"image": "x", "args": []string{"a", "${b}"}, "shm_size": 1 << 30, "ratio": f,
					"labels":  map[string]any{"z": "1", "a.b": []string{"x"}, "nested": map[string]any{"k": "v", "e": map[string]string{}}},
					"nothing": nil, "flag": true, "after": "x"},
				Env:       map[string]string{"A.B": "1", "C": "2"},
				Templates: []*api.Template{{EmbeddedTmpl: new("line\n{{ x }}\n"), DestPath: new("local/x"), ChangeMode: new("noop"), Envvars: new(true)}},
				Lifecycle: &api.TaskLifecycle{Hook: "poststart", Sidecar: true},
			}}, Networks: []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "p"}}, ReservedPorts: []api.Port{{Label: "s", Value: 10001}}}}}}},
		"object in a list": {ID: new("j"), TaskGroups: []*api.TaskGroup{{Name: new("g"), Tasks: []*api.Task{{
			Name: "t", Driver: "docker", Config: map[string]any{"mounts": []map[string]any{{"type": "bind", "target": "/x"}}, "image": "i"}}}}}},
		"labelled blocks of a map": {ID: new("j"), TaskGroups: []*api.TaskGroup{{Name: new("g"),
			Volumes: map[string]*api.VolumeRequest{"z": {Name: "z", Type: "csi", Source: "s", AccessMode: "multi-node-multi-writer", AttachmentMode: "file-system"}, "a": {Name: "a", Type: "host", Source: "h", ReadOnly: true}},
			Tasks:   []*api.Task{{Name: "t", Driver: "exec", VolumeMounts: []*api.VolumeMount{{Volume: new("a"), Destination: new("/data"), ReadOnly: new(true)}}}}}}},
	}
	for name, job := range fixed {
		directEqualsFormat(t, name, job)
	}
	rng := rand.New(rand.NewSource(7))
	pick := func() string {
		var b strings.Builder
		for n := rng.Intn(4); n >= 0; n-- {
			b.WriteString(hostile[rng.Intn(len(hostile))])
		}
		return b.String()
	}
	for i := 0; i < 300; i++ {
		s, k := pick(), pick()
		if k == "" {
			k = "k"
		}
		job := &api.Job{ID: new("j" + s), Meta: map[string]string{k: s, "x": pick()}, TaskGroups: []*api.TaskGroup{{Name: new(pick()), Tasks: []*api.Task{{
			Name: pick(), Driver: "raw_exec",
			Config:    map[string]any{"command": s, "args": []string{s, pick()}},
			Env:       map[string]string{"E": s, k: pick()},
			Templates: []*api.Template{{EmbeddedTmpl: new(pick()), DestPath: new("local/x")}},
		}}}}}
		directEqualsFormat(t, s, job)
	}
}
