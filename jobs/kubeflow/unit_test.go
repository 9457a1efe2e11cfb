package kubeflow

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jobshift/jobshift/jobs"
)

func TestParseQuantity(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string // exact rational, or "" for ErrQuantity
	}{
		"millicores":        {"500m", "1/2"},
		"integer":           {"2", "2"},
		"fraction":          {"0.5", "1/2"},
		"binary Gi":         {"4Gi", "4294967296"},
		"decimal M":         {"1000M", "1000000000"},
		"exponent":          {"1e3", "1000"},
		"upper exponent":    {"2E6", "2000000"},
		"negative exponent": {"5e-1", "1/2"},
		"kilo":              {"1k", "1000"},
		"nano":              {"1n", "1/1000000000"},
		"Ki":                {"1.5Ki", "1536"},
		"Ei":                {"1Ei", "1152921504606846976"},
		"plus sign":         {"+3", "3"},
		"leading dot":       {".5", "1/2"},
		"empty":             {"", ""},
		"bad suffix":        {"4GB", ""},
		"space":             {"4 Gi", ""},
		"two dots":          {"1.2.3", ""},
		"no digits":         {"m", ""},
		"lower k only":      {"1K", ""},
		"exp too long":      {"1e1000", ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			q, err := ParseQuantity(tc.in)
			if tc.want == "" {
				if !errors.Is(err, ErrQuantity) {
					t.Fatalf("ParseQuantity(%q) = %v, %v; want ErrQuantity", tc.in, q, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseQuantity(%q): %v", tc.in, err)
			}
			want, _ := new(big.Rat).SetString(tc.want)
			if q.Cmp(want) != 0 {
				t.Errorf("ParseQuantity(%q) = %s, want %s", tc.in, q.RatString(), tc.want)
			}
		})
	}
}

func TestCeil(t *testing.T) {
	tests := map[string]struct {
		in    string
		scale *big.Rat
		want  int64
	}{
		"1000M in MiB rounds up": {"1000M", scaleMiB, 954},
		"4Gi in MiB":             {"4Gi", scaleMiB, 4096},
		"0.1m cpu rounds up":     {"0.1m", scaleMilli, 1},
		"1.5 cpu":                {"1.5", scaleMilli, 1500},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			q, err := ParseQuantity(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := ceilInt64(q, tc.scale)
			if !ok || got != tc.want {
				t.Errorf("ceil(%s) = %d, %v; want %d", tc.in, got, ok, tc.want)
			}
		})
	}
}

// TestExpand pins Kubernetes' $(VAR) expansion rules.
func TestExpand(t *testing.T) {
	env := map[string]string{"A": "x", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	tests := map[string]struct {
		in, want   string
		unresolved []string
	}{
		"defined":         {"$(A)/b", "x/b", nil},
		"empty value":     {"<$(EMPTY)>", "<>", nil},
		"escaped":         {"$$(A)", "$(A)", nil},
		"double dollar":   {"a$$b", "a$b", nil},
		"undefined":       {"$(B)", "$(B)", []string{"B"}},
		"unterminated":    {"$(A", "$(A", nil},
		"shell forms":     {"${A} $A", "${A} $A", nil},
		"trailing dollar": {"5$", "5$", nil},
		"no dollar":       {"plain", "plain", nil},
		"adjacent":        {"$(A)$(A)", "xx", nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, unresolved := expand(tc.in, lookup)
			if got != tc.want {
				t.Errorf("expand(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if diff := cmp.Diff(tc.unresolved, unresolved); diff != "" {
				t.Errorf("unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsKubeflow(t *testing.T) {
	tests := map[string]struct {
		src  string
		want bool
	}{
		"tfjob":                 {"apiVersion: kubeflow.org/v1\nkind: TFJob\n", true},
		"quoted 2017 kind":      {"kind: \"TfJob\"\n", true},
		"pytorchjob":            {"kind: PyTorchJob # comment\n", true},
		"mpijob":                {"kind: MPIJob\r\n", true},
		"pvc first":             {"kind: PersistentVolumeClaim\n---\nkind: TFJob\n", true},
		"appwrapper":            {"kind: AppWrapper\nspec:\n  components:\n  - template:\n      apiVersion: kubeflow.org/v1\n      kind: PyTorchJob\n", true},
		"plain appwrapper":      {"kind: AppWrapper\nspec: {}\n", false},
		"pai v2":                {"protocolVersion: 2\nname: x\ntaskRoles: {}\n", false},
		"pai v1 json":           {`{"jobName": "x", "taskRoles": []}`, false},
		"all commented out":     {"# kind: PyTorchJob\n# metadata:\n", true},
		"commented but content": {"# kind: PyTorchJob\nprotocolVersion: 2\n", false},
		"empty":                 {"", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := IsKubeflow([]byte(tc.src)); got != tc.want {
				t.Errorf("IsKubeflow = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLossyOnlyDowngrades checks the -lossy contract on every golden input:
// the same diagnostics in the same places, only errors from lossyf turned
// into warnings, never a new error.
func TestLossyOnlyDowngrades(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*.yaml")
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		_, strict := Read(src, jobs.ReadOptions{Path: in})
		_, lossy := Read(src, jobs.ReadOptions{Path: in, Lossy: true})
		if len(strict) != len(lossy) {
			t.Errorf("%s: %d diagnostics strict, %d lossy", in, len(strict), len(lossy))
			continue
		}
		for i := range strict {
			s, l := strict[i], lossy[i]
			if s.Summary != l.Summary || *s.Subject != *l.Subject || l.Severity < s.Severity {
				t.Errorf("%s: diagnostic %d changed: %q %v -> %q %v", in, i, s.Summary, s.Severity, l.Summary, l.Severity)
			}
		}
	}
}

// TestOptionsForOtherFormats: PAI-only options are reported, not silently
// dropped, and change nothing else.
func TestOptionsForOtherFormats(t *testing.T) {
	src, err := os.ReadFile("testdata/tf_v1beta2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base, baseDiags := Read(src, jobs.ReadOptions{Path: "x"})
	job, diags := Read(src, jobs.ReadOptions{Path: "x", Vars: map[string]string{"a": "b"}, Secrets: map[string]any{}, Dialect: "leinao"})
	if diff := cmp.Diff(base, job); diff != "" {
		t.Errorf("options changed the job (-without +with):\n%s", diff)
	}
	var got []string
	for _, d := range diags[len(baseDiags):] {
		got = append(got, d.Summary)
	}
	want := []string{"-var has no effect", "-secrets has no effect"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extra diagnostics (-want +got):\n%s", diff)
	}
}
