package intask

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jobshift/jobshift/translate/contract"
)

// TestExecEnv: the command's environment is the task's without the
// payload, the evaluated variables over it, a later one of a name winning.
func TestExecEnv(t *testing.T) {
	for name, tc := range map[string]struct {
		environ []string
		vars    []contract.Var
		want    []string
	}{
		"payload removed, the rest kept": {
			environ: []string{"PATH=/bin", EnvVar + "=abc", "NOMAD_ALLOC_INDEX=3"},
			want:    []string{"NOMAD_ALLOC_INDEX=3", "PATH=/bin"},
		},
		"a contract variable overrides the env block": {
			environ: []string{"PAI_TASK_INDEX=wrong", "USER_X=1"},
			vars:    []contract.Var{{Name: "PAI_TASK_INDEX", Value: "0"}},
			want:    []string{"PAI_TASK_INDEX=0", "USER_X=1"},
		},
		"the later of two evaluated values wins, once": {
			vars: []contract.Var{{Name: "A", Value: "first"}, {Name: "B", Value: ""}, {Name: "A", Value: "second"}},
			want: []string{"A=second", "B="},
		},
		"values travel byte for byte": {
			vars: []contract.Var{{Name: "X", Value: "a=b\nc ${d} '\"\x01"}},
			want: []string{"X=a=b\nc ${d} '\"\x01"},
		},
	} {
		got := ExecEnv(tc.environ, tc.vars)
		slices.Sort(got)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// TestEnvFileFormat: local/jobshift.env has the template's line format.
func TestEnvFileFormat(t *testing.T) {
	got := string(EnvFile([]contract.Var{{Name: "A", Value: "x \"y\"\n"}, {Name: "B.c", Value: ""}, {Name: "U", Value: "<é>"}}))
	want := "A=\"x \\\"y\\\"\\n\"\nB.c=\"\"\nU=\"\\u003cé\\u003e\"\n"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestToken: the workload identity's file wins over a NOMAD_TOKEN
// the task inherited from its client agent; without a file the variable
// (identity { env = true }) is the token.
func TestToken(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOMAD_SECRETS_DIR", dir)
	t.Setenv("NOMAD_TOKEN", "operator-token")
	if got := Token(); got != "operator-token" {
		t.Errorf("no file: %q, want the variable's", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "nomad_token"), []byte("wi-jwt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := Token(); got != "wi-jwt" {
		t.Errorf("with the file: %q, want the file's", got)
	}
}
