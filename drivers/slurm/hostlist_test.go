package slurm

import (
	"errors"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values were checked by hand against `scontrol show hostnames`
// (Slurm 22.05.8) on the test cluster.
var hostlistCases = map[string]struct {
	in   string
	want []string
	bad  bool
}{
	"single":          {in: "n1", want: []string{"n1"}},
	"range":           {in: "n[1-3]", want: []string{"n1", "n2", "n3"}},
	"padding kept":    {in: "n[08-11]", want: []string{"n08", "n09", "n10", "n11"}},
	"width of low":    {in: "x[8-011]", want: []string{"x8", "x9", "x10", "x11"}},
	"padded low wide": {in: "y[001-3]", want: []string{"y001", "y002", "y003"}},
	"zero":            {in: "q[000]", want: []string{"q000"}},
	"lists":           {in: "node[01-04,07],gpu-a[1-2],x[8-11]", want: []string{"node01", "node02", "node03", "node04", "node07", "gpu-a1", "gpu-a2", "x8", "x9", "x10", "x11"}},
	"two groups":      {in: "a[1-2]b[3-4]", want: []string{"a1b3", "a1b4", "a2b3", "a2b4"}},
	"suffix":          {in: "n[1-2]x", bad: true},
	"inner text":      {in: "a[1-2]b[3]", want: []string{"a1b3", "a2b3"}},
	"not sorted":      {in: "n[3,1],m1", want: []string{"n3", "n1", "m1"}},
	"duplicates kept": {in: "n[1-3],n2", want: []string{"n1", "n2", "n3", "n2"}},
	"plain names":     {in: "a,b,c[1]", want: []string{"a", "b", "c1"}},
	"reversed":        {in: "c[10-8]", bad: true},
	"unclosed":        {in: "x[1", bad: true},
	"stray close":     {in: "x]", bad: true},
	"empty item":      {in: "a,,b", bad: true},
	"trailing comma":  {in: "a,", bad: true},
	"nested":          {in: "a[1[2]]", bad: true},
	"empty range":     {in: "a[]", bad: true},
	"open range":      {in: "a[1-]", bad: true},
	"letters":         {in: "a[x-y]", bad: true},
}

func TestExpandHostlist(t *testing.T) {
	for name, tc := range hostlistCases {
		t.Run(name, func(t *testing.T) {
			got, err := ExpandHostlist(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrHostlist) {
					t.Fatalf("ExpandHostlist(%q) = %v, %v; want ErrHostlist", tc.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ExpandHostlist(%q) (-want +got):\n%s", tc.in, d)
			}
		})
	}
}

func TestExpandTasksPerNode(t *testing.T) {
	cases := map[string]struct {
		in   string
		want []int
		bad  bool
	}{
		"one":      {in: "2", want: []int{2}},
		"repeat":   {in: "2(x3),1", want: []int{2, 2, 2, 1}},
		"list":     {in: "1,2", want: []int{1, 2}},
		"tf doc":   {in: "3(x2),2,1", want: []int{3, 3, 2, 1}},
		"bad":      {in: "2(3)", bad: true},
		"letters":  {in: "a", bad: true},
		"empty it": {in: "1,,2", bad: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ExpandTasksPerNode(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrHostlist) {
					t.Fatalf("got %v, %v; want ErrHostlist", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// shells are the shells the embedded sh must work under.
var shells = []string{"dash", "bash"}

// runSh runs script (after the embedded library text lib) under shell with
// args, returning stdout and the exit status.
func runSh(t *testing.T, shell, lib, script string, args ...string) (string, int) {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s not installed", shell)
	}
	cmd := exec.Command(path, append([]string{"-c", lib + "\n" + script, "js-test"}, args...)...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if errb.Len() > 0 && code == 0 {
		t.Logf("%s stderr: %s", shell, errb.String())
	}
	return out.String(), code
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// randomHostlist builds hostlists over the grammar (ranges, padding, lists,
// several groups, plain names).
func randomHostlist(r *rand.Rand) string {
	var items []string
	for i := 0; i <= r.Intn(3); i++ {
		name := []string{"n", "gpu-a", "node", "r1-c"}[r.Intn(4)]
		for g := 0; g <= r.Intn(2); g++ {
			var ranges []string
			for k := 0; k <= r.Intn(2); k++ {
				w := 1 + r.Intn(3)
				lo := r.Intn(12)
				hi := lo + r.Intn(4)
				if r.Intn(3) == 0 {
					ranges = append(ranges, fmt.Sprintf("%0*d", w, lo))
				} else {
					ranges = append(ranges, fmt.Sprintf("%0*d-%d", w, lo, hi))
				}
			}
			name += "[" + strings.Join(ranges, ",") + "]"
			if r.Intn(3) == 0 {
				name += "x"
			}
		}
		if r.Intn(5) == 0 {
			name = "plain" + fmt.Sprint(i)
		}
		items = append(items, name)
	}
	return strings.Join(items, ",")
}

// TestShellHostlistMatchesGo: js_hostlist under dash and bash must expand
// exactly as ExpandHostlist, and fail exactly where it fails.
func TestShellHostlistMatchesGo(t *testing.T) {
	inputs := []string{}
	for _, tc := range hostlistCases {
		inputs = append(inputs, tc.in)
	}
	r := rand.New(rand.NewSource(6))
	for i := 0; i < 60; i++ {
		inputs = append(inputs, randomHostlist(r))
	}
	// one script call per shell: a loop over all inputs, separated by markers
	script := `for l in "$@"; do if js_hostlist "$l"; then echo "#ok"; else echo "#bad"; fi; done`
	for _, sh := range shells {
		out, code := runSh(t, sh, shHostlist, script, inputs...)
		if code != 0 {
			t.Fatalf("%s exited %d", sh, code)
		}
		res := splitResults(out)
		if len(res) != len(inputs) {
			t.Fatalf("%s: %d results for %d inputs:\n%s", sh, len(res), len(inputs), out)
		}
		for i, in := range inputs {
			want, err := ExpandHostlist(in)
			got := res[i]
			if err != nil {
				if got.ok {
					t.Errorf("%s: js_hostlist %q succeeded (%v), Go says %v", sh, in, got.lines, err)
				}
				continue
			}
			if !got.ok {
				t.Errorf("%s: js_hostlist %q failed, Go gives %v", sh, in, want)
				continue
			}
			if d := cmp.Diff(want, got.lines); d != "" {
				t.Errorf("%s: js_hostlist %q (-go +sh):\n%s", sh, in, d)
			}
		}
	}
}

type shResult struct {
	ok    bool
	lines []string
}

func splitResults(out string) []shResult {
	var res []shResult
	var cur []string
	for _, l := range lines(out) {
		switch l {
		case "#ok", "#bad":
			res = append(res, shResult{ok: l == "#ok", lines: cur})
			cur = nil
		default:
			cur = append(cur, l)
		}
	}
	return res
}

func TestShellTasksPerNodeMatchesGo(t *testing.T) {
	inputs := []string{"2", "2(x3),1", "1,2", "3(x2),2,1", "10(x12)", "2(3)", "a", "1,,2"}
	script := `for l in "$@"; do if js_tpn "$l"; then echo "#ok"; else echo "#bad"; fi; done`
	for _, sh := range shells {
		out, _ := runSh(t, sh, shHostlist, script, inputs...)
		res := splitResults(out)
		if len(res) != len(inputs) {
			t.Fatalf("%s: %d results for %d inputs:\n%s", sh, len(res), len(inputs), out)
		}
		for i, in := range inputs {
			want, err := ExpandTasksPerNode(in)
			if (err == nil) != res[i].ok {
				t.Errorf("%s: js_tpn %q ok=%v, Go err=%v", sh, in, res[i].ok, err)
				continue
			}
			var ws []string
			for _, n := range want {
				ws = append(ws, fmt.Sprint(n))
			}
			if err == nil {
				if d := cmp.Diff(ws, res[i].lines); d != "" {
					t.Errorf("%s: js_tpn %q (-go +sh):\n%s", sh, in, d)
				}
			}
		}
	}
}

// TestHostlistMatchesScontrol checks the Go parser against Slurm itself
// (`scontrol show hostnames` is local, no controller needed).
func TestHostlistMatchesScontrol(t *testing.T) {
	if err := exec.Command("scontrol", "show", "hostnames", "n1").Run(); err != nil {
		t.Skipf("scontrol unusable (no SLURM_CONF?): %v", err)
	}
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 40; i++ {
		in := randomHostlist(r)
		out, err := exec.Command("scontrol", "show", "hostnames", in).CombinedOutput()
		if err == nil && strings.Contains(string(out), "Invalid hostlist") {
			err = errors.New(string(out)) // 22.05 exits 0 on a bad list
		}
		want, gerr := ExpandHostlist(in)
		if err != nil || gerr != nil {
			if (err == nil) != (gerr == nil) {
				t.Errorf("%q: scontrol err=%v, Go err=%v", in, err, gerr)
			}
			continue
		}
		if d := cmp.Diff(lines(string(out)), want); d != "" {
			t.Errorf("%q (-scontrol +go):\n%s", in, d)
		}
	}
}
