package contract

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/jobs"
)

// TestFamilies: which runs of definitions the Nomad rendering writes as
// one loop. The expected families are written by hand; a run that is not
// exactly one block per task (an override, a gap, a single task) stays
// written out.
func TestFamilies(t *testing.T) {
	ip := func(k, i int) expr { return addr(k, i) }
	tests := map[string]struct {
		defs []def
		want []famSummary
	}{
		"host ips of three tasks": {
			defs: []def{{name: "A", val: lit("x")}, {name: "IP_w_0", val: ip(0, 0)}, {name: "IP_w_1", val: ip(0, 1)}, {name: "IP_w_2", val: ip(0, 2)}, {name: "B", val: lit("y")}},
			want: []famSummary{{start: 1, block: 1, tasks: 3, names: []string{"IP_w_|"}}},
		},
		"two items per task, role name ending in a digit": {
			defs: []def{{name: "P_w1_0_http", val: ports(1, 0, "http")}, {name: "IP_w1_0", val: ip(1, 0)}, {name: "P_w1_1_http", val: ports(1, 1, "http")}, {name: "IP_w1_1", val: ip(1, 1)}},
			want: []famSummary{{start: 0, block: 2, tasks: 2, names: []string{"P_w1_|_http", "IP_w1_|"}}},
		},
		"one task is no loop": {
			defs: []def{{name: "IP_w_0", val: ip(0, 0)}, {name: "B", val: lit("y")}},
		},
		"a later contract's override ends the run": {
			defs: []def{{name: "IP_w_0", val: ip(0, 0)}, {name: "IP_w_1", val: ip(0, 1)}, {name: "IP_w_2", val: lit("fixed")}, {name: "IP_w_3", val: ip(0, 3)}},
			want: []famSummary{{start: 0, block: 1, tasks: 2, names: []string{"IP_w_|"}}},
		},
		"a value of another task than its name's": {
			defs: []def{{name: "IP_w_0", val: ip(0, 0)}, {name: "IP_w_1", val: ip(0, 1)}, {name: "IP_w_2", val: ip(0, 1)}},
			want: []famSummary{{start: 0, block: 1, tasks: 2, names: []string{"IP_w_|"}}},
		},
		"names that do not count": {
			defs: []def{{name: "IP_w_0", val: ip(0, 0)}, {name: "IP_x_1", val: ip(0, 1)}},
		},
		"a self part is never a family": {
			defs: []def{{name: "S_0", val: cat(ip(0, 0), ports(0, self, "http"))}, {name: "S_1", val: cat(ip(0, 1), ports(0, self, "http"))}},
		},
		"two roles, two loops": {
			defs: []def{{name: "IP_a_0", val: ip(0, 0)}, {name: "IP_a_1", val: ip(0, 1)}, {name: "IP_b_0", val: ip(1, 0)}, {name: "IP_b_1", val: ip(1, 1)}, {name: "IP_b_2", val: ip(1, 2)}},
			want: []famSummary{{start: 0, block: 1, tasks: 2, names: []string{"IP_a_|"}}, {start: 2, block: 1, tasks: 3, names: []string{"IP_b_|"}}},
		},
		"index ten and up": {
			defs: func() []def {
				var ds []def
				for i := range 12 {
					ds = append(ds, def{name: "IP_w_" + strconv.Itoa(i) + "_x", val: ip(0, i)})
				}
				return ds
			}(),
			want: []famSummary{{start: 0, block: 1, tasks: 12, names: []string{"IP_w_|_x"}}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []famSummary
			for _, f := range families(tc.defs) {
				s := famSummary{start: f.start, block: f.block, tasks: f.tasks}
				for _, it := range f.items {
					s.names = append(s.names, it.prefix+"|"+it.suffix)
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(famSummary{})); d != "" {
				t.Errorf("families (-want +got):\n%s", d)
			}
		})
	}
}

type famSummary struct {
	start, block, tasks int
	names               []string
}

// TestNomadTemplateSizeFlat: a 1,000-task PAI job's template text does
// not grow with the tasks but for the values that list every task (the
// host list): well under what one line per variable took (533 KB).
func TestNomadTemplateSizeFlat(t *testing.T) {
	size := func(n int) int {
		j := &jobs.Job{Name: "big", Contracts: []string{jobs.ContractPAI}, Roles: []*jobs.Role{
			{Name: "worker", Instances: n, Ports: []jobs.Port{{Label: "http", Count: 1}, {Label: "ssh", Count: 1}, {Label: "syn", Count: 1}}},
		}}
		text, err := NomadSnapshotTemplate(j, "worker", "big", Snapshot{Path: "nomad/jobs/big/worker", AttemptEnv: "A"}, Options{User: "u"})
		if err != nil {
			t.Fatal(err)
		}
		return len(text)
	}
	s10, s1000 := size(10), size(1000)
	// The host list is ≈ 50 bytes of template per task; everything else
	// must not depend on the count.
	t.Logf("template: %d B at 10 tasks, %d B at 1,000", s10, s1000)
	if per := float64(s1000-s10) / 990; per > 64 {
		t.Errorf("template grows %.0f bytes per task (10 tasks: %d B, 1,000: %d B); want ≤ 64", per, s10, s1000)
	}
}
