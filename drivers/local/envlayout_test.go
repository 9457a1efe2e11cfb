package local

import (
	"slices"
	"testing"
)

// TestEnvLayoutsMerge: a merge through a layout worked out for earlier
// tasks gives what mergeEnv gives: base order kept, a later value wins at
// the first position of its name, shared NAME=VALUE strings used only when
// they match.
func TestEnvLayoutsMerge(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "PATH=/usr/bin"}
	for _, tc := range []struct {
		name string
		add  []envVar
		want []string
	}{
		{"first task", []envVar{{Name: "A", Value: "1"}, {Name: "HOME", Value: "/t"}, {Name: "B", Value: "x", kv: "B=x"}},
			[]string{"PATH=/usr/bin", "HOME=/t", "A=1", "B=x"}},
		{"same names, other values", []envVar{{Name: "A", Value: "2"}, {Name: "HOME", Value: "/u"}, {Name: "B", Value: "y"}},
			[]string{"PATH=/usr/bin", "HOME=/u", "A=2", "B=y"}},
		{"a name twice: the last wins", []envVar{{Name: "A", Value: "1"}, {Name: "C", Value: "c"}, {Name: "A", Value: "3"}},
			[]string{"PATH=/usr/bin", "HOME=/h", "A=3", "C=c"}},
		{"other names", []envVar{{Name: "D", Value: "d"}},
			[]string{"PATH=/usr/bin", "HOME=/h", "D=d"}},
	} {
		ls := &envLayouts{}
		// twice through one layout set: worked out, then reused
		for round := range 2 {
			if got := ls.merge(base, tc.add); !slices.Equal(got, tc.want) {
				t.Errorf("%s (round %d): got %q, want %q", tc.name, round, got, tc.want)
			}
		}
		if got := mergeEnv(base, tc.add); !slices.Equal(got, tc.want) {
			t.Errorf("%s: mergeEnv got %q, want %q", tc.name, got, tc.want)
		}
	}
	// one layout set across tasks of different shapes, as prepare uses it
	ls := &envLayouts{}
	a := []envVar{{Name: "A", Value: "1"}}
	b := []envVar{{Name: "B", Value: "2"}, {Name: "A", Value: "3"}}
	for range 2 {
		if got, want := ls.merge(base, a), []string{"PATH=/usr/bin", "HOME=/h", "A=1"}; !slices.Equal(got, want) {
			t.Errorf("a: got %q, want %q", got, want)
		}
		if got, want := ls.merge(base, b), []string{"PATH=/usr/bin", "HOME=/h", "B=2", "A=3"}; !slices.Equal(got, want) {
			t.Errorf("b: got %q, want %q", got, want)
		}
	}
}
